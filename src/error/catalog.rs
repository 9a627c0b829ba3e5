//! The error catalog: every code of the spec's Errors section (plus the
//! ACCOUNT_* codes and two generic HTTP codes), generated from the spec's table.
//! A code string never changes once shipped: add new variants, never rename.

use actix_web::http::StatusCode;

/// A stable machine code with its HTTP status, domain and meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// entity does not exist
    EntityNotFound,
    /// slug already used
    EntitySlugTaken,
    /// localization for locale exists
    EntityLocalizationExists,
    /// no localization for entity and locale
    EntityLocalizationNotFound,
    /// admin key required to create sites
    SiteCreateRequiresAdmin,
    /// exactly one default locale required
    SiteCreateInvalidLocales,
    /// site-scoped keys cannot create sites
    SiteCreateScopedKey,
    /// 30-day restore window lapsed
    SiteRestoreExpired,
    /// only owner, site admin or system admin may export
    SiteExportForbidden,
    /// job missing or artifact expired
    SiteExportJobNotFound,
    /// export already queued or running
    SiteExportAlreadyRunning,
    /// worker failed to build or store archive
    SiteExportFailed,
    /// sample content exists
    BlogSampleExists,
    /// no default locale for site
    BlogNoDefaultLocale,
    /// status needed for UpdateStatus
    BlogBulkStatusRequired,
    /// same, pages
    PageBulkStatusRequired,
    /// same, CV entries
    CvBulkStatusRequired,
    /// same, projects
    ProjectBulkStatusRequired,
    /// invalid status transition
    ContentInvalidStatus,
    /// publish_end must be after publish_start
    ContentPublishDateInvalid,
    /// unknown content entity type
    ContentUnknownEntityType,
    /// no default environment
    ContentNoDefaultEnvironment,
    /// no unique slug, too many copies
    ContentSlugGenerationFailed,
    /// no unique route, too many copies
    ContentRouteGenerationFailed,
    /// must be InReview to review
    ContentReviewInvalidStatus,
    /// password needed
    DocumentPasswordRequired,
    /// wrong password
    DocumentPasswordIncorrect,
    /// too many failed attempts
    DocumentAccessRateLimited,
    /// encryption failed
    DocumentEncryptionFailed,
    /// decryption failed
    DocumentDecryptionFailed,
    /// only uploaded documents can be protected
    DocumentNotUploadable,
    /// private document access window expired
    DocumentExpired,
    /// locked after 3 failed attempts, admin unlock needed
    DocumentLocked,
    /// unlock requested on unlocked document
    DocumentNotLocked,
    /// expires_at must be in the future and at most one year ahead
    DocumentInvalidTtl,
    /// file exceeds maximum size
    MediaUploadTooLarge,
    /// type not allowed
    MediaUploadInvalidType,
    /// empty file or no data
    MediaUploadEmpty,
    /// no file data in request
    MediaUploadNoData,
    /// reading upload failed
    MediaUploadReadFailed,
    /// invalid tag format
    MediaTagInvalid,
    /// too many tags
    MediaTooManyTags,
    /// per-site storage quota exceeded
    StorageQuotaExceeded,
    /// item not in trash
    TrashAlreadyRestored,
    /// item not soft-deleted
    TrashNotDeleted,
    /// no bearer token or X-API-Key
    AuthMissingCredentials,
    /// token invalid or expired
    AuthTokenInvalid,
    /// aud claim mismatch
    AuthTokenAudience,
    /// iss claim mismatch
    AuthTokenIssuer,
    /// role too low
    AuthInsufficientRole,
    /// no access to site
    AuthSiteAccessDenied,
    /// API key invalid
    AuthApiKeyInvalid,
    /// key lacks access to site
    AuthApiKeySiteDenied,
    /// sole owner cannot delete account
    AuthAccountSoleOwner,
    /// identity provider not configured
    AuthIdpNotConfigured,
    /// too many failed authentications
    AuthRateLimited,
    /// cannot create key with requested permission
    ApiKeyPermissionExceeded,
    /// invalid key status
    ApiKeyInvalidStatus,
    /// invalid key permission
    ApiKeyInvalidPermission,
    /// site admins must give site_id filter when listing keys
    ApiKeySiteFilterRequired,
    /// locale code exists
    LocaleCodeTaken,
    /// locale assigned to sites
    LocaleDeleteInUse,
    /// cannot remove last language
    SiteLocaleLastLanguage,
    /// already a member
    MemberAlreadyExists,
    /// only owner assigns Admin or Owner
    MemberRoleOwnerRequired,
    /// transfer ownership first
    MemberCannotRemoveOwner,
    /// needs JWT authentication
    MemberRequiresIdpAuth,
    /// owner must transfer ownership
    SiteOwnerCannotLeave,
    /// title needed before publishing
    LegalPublishMissingTitle,
    /// content needed before publishing
    LegalPublishMissingBody,
    /// cannot version a deleted document
    LegalVersionSourceDeleted,
    /// source equals destination
    RedirectSamePath,
    /// test delivery failed
    WebhookTestFailed,
    /// URL targets private network
    WebhookUrlSsrf,
    /// debounce outside 0-300
    WebhookInvalidDebounce,
    /// window not 1h, 24h, 7d, 30d
    WebhookInvalidStatsWindow,
    /// only own notifications
    NotificationAccessDenied,
    /// needs JWT authentication
    NotificationRequiresIdp,
    /// no default environment
    EnvironmentNoDefault,
    /// analytics disabled for site
    AnalyticsNotEnabled,
    /// AI not configured
    AiNotConfigured,
    /// AI provider failed
    AiProviderUnavailable,
    /// AI response unparsable
    AiResponseParseFailed,
    /// invalid translation request
    AiTranslateInvalid,
    /// AI base URL targets private network
    AiUrlSsrf,
    /// image_url required for auto_tag, alt_text
    AiVisionMissingImage,
    /// section_context with section_type required for section_content
    AiSectionContextInsufficient,
    /// unknown section type
    AiSectionTypeUnknown,
    /// content too short for a suggestion
    AiContextInsufficient,
    /// identity provider service not configured
    IdpNotConfigured,
    /// user does not exist
    IdpUserNotFound,
    /// identity provider request failed
    IdpApiFailed,
    /// invalid user identifier
    IdpInvalidIdentifier,
    /// invalid role
    IdpInvalidRole,
    /// must be reviewed before publishing
    WorkflowReviewRequired,
    /// reviewers only transition InReview content
    WorkflowInvalidStatus,
    /// no permission to change status
    WorkflowNoPermission,
    /// module disabled for site
    ModuleNotEnabled,
    /// needs JWT authentication
    OnboardingRequiresIdp,
    /// duplicate field labels
    FormDuplicateFieldLabels,
    /// template name used
    FormTemplateNameExists,
    /// token required, none given
    BotProtectionMissing,
    /// token failed, expired or replayed
    BotProtectionInvalid,
    /// mandatory form but no verifier set up
    BotProtectionNotConfigured,
    /// remote verifier unreachable or unexpected reply
    BotProtectionProviderError,
    /// submission field validation failed
    FormValidationFailed,
    /// consent_given was false
    FormConsentRequired,
    /// submission already deleted
    SubmissionDeleted,
    /// reference code unknown
    InvalidReferenceCode,
    /// submission status move not allowed
    InvalidStatusTransition,
    /// required field missing
    ValidationRequiredField,
    /// invalid format
    ValidationInvalidFormat,
    /// value out of range
    ValidationOutOfRange,
    /// rate limit exceeded
    RateLimitExceeded,
    /// required service unavailable
    ServiceUnavailable,
    /// unexpected error
    InternalError,
    /// database error
    DatabaseError,
    /// storage backend error
    StorageError,
    /// generic not found
    ResourceNotFound,
    /// generic malformed request
    BadRequest,
    /// generic validation failure
    ValidationError,
    /// generic authentication required
    Unauthorized,
    /// generic forbidden
    Forbidden,
    /// generic conflict
    Conflict,
    /// generic payload too large
    PayloadTooLarge,
    /// account suspended
    AccountSuspended,
    /// account banned
    AccountBanned,
    /// generic method not allowed for this path
    MethodNotAllowed,
    /// generic unsupported request content type
    UnsupportedMediaType,
}

impl ErrorCode {
    /// Every code, in catalog order.
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::EntityNotFound,
        ErrorCode::EntitySlugTaken,
        ErrorCode::EntityLocalizationExists,
        ErrorCode::EntityLocalizationNotFound,
        ErrorCode::SiteCreateRequiresAdmin,
        ErrorCode::SiteCreateInvalidLocales,
        ErrorCode::SiteCreateScopedKey,
        ErrorCode::SiteRestoreExpired,
        ErrorCode::SiteExportForbidden,
        ErrorCode::SiteExportJobNotFound,
        ErrorCode::SiteExportAlreadyRunning,
        ErrorCode::SiteExportFailed,
        ErrorCode::BlogSampleExists,
        ErrorCode::BlogNoDefaultLocale,
        ErrorCode::BlogBulkStatusRequired,
        ErrorCode::PageBulkStatusRequired,
        ErrorCode::CvBulkStatusRequired,
        ErrorCode::ProjectBulkStatusRequired,
        ErrorCode::ContentInvalidStatus,
        ErrorCode::ContentPublishDateInvalid,
        ErrorCode::ContentUnknownEntityType,
        ErrorCode::ContentNoDefaultEnvironment,
        ErrorCode::ContentSlugGenerationFailed,
        ErrorCode::ContentRouteGenerationFailed,
        ErrorCode::ContentReviewInvalidStatus,
        ErrorCode::DocumentPasswordRequired,
        ErrorCode::DocumentPasswordIncorrect,
        ErrorCode::DocumentAccessRateLimited,
        ErrorCode::DocumentEncryptionFailed,
        ErrorCode::DocumentDecryptionFailed,
        ErrorCode::DocumentNotUploadable,
        ErrorCode::DocumentExpired,
        ErrorCode::DocumentLocked,
        ErrorCode::DocumentNotLocked,
        ErrorCode::DocumentInvalidTtl,
        ErrorCode::MediaUploadTooLarge,
        ErrorCode::MediaUploadInvalidType,
        ErrorCode::MediaUploadEmpty,
        ErrorCode::MediaUploadNoData,
        ErrorCode::MediaUploadReadFailed,
        ErrorCode::MediaTagInvalid,
        ErrorCode::MediaTooManyTags,
        ErrorCode::StorageQuotaExceeded,
        ErrorCode::TrashAlreadyRestored,
        ErrorCode::TrashNotDeleted,
        ErrorCode::AuthMissingCredentials,
        ErrorCode::AuthTokenInvalid,
        ErrorCode::AuthTokenAudience,
        ErrorCode::AuthTokenIssuer,
        ErrorCode::AuthInsufficientRole,
        ErrorCode::AuthSiteAccessDenied,
        ErrorCode::AuthApiKeyInvalid,
        ErrorCode::AuthApiKeySiteDenied,
        ErrorCode::AuthAccountSoleOwner,
        ErrorCode::AuthIdpNotConfigured,
        ErrorCode::AuthRateLimited,
        ErrorCode::ApiKeyPermissionExceeded,
        ErrorCode::ApiKeyInvalidStatus,
        ErrorCode::ApiKeyInvalidPermission,
        ErrorCode::ApiKeySiteFilterRequired,
        ErrorCode::LocaleCodeTaken,
        ErrorCode::LocaleDeleteInUse,
        ErrorCode::SiteLocaleLastLanguage,
        ErrorCode::MemberAlreadyExists,
        ErrorCode::MemberRoleOwnerRequired,
        ErrorCode::MemberCannotRemoveOwner,
        ErrorCode::MemberRequiresIdpAuth,
        ErrorCode::SiteOwnerCannotLeave,
        ErrorCode::LegalPublishMissingTitle,
        ErrorCode::LegalPublishMissingBody,
        ErrorCode::LegalVersionSourceDeleted,
        ErrorCode::RedirectSamePath,
        ErrorCode::WebhookTestFailed,
        ErrorCode::WebhookUrlSsrf,
        ErrorCode::WebhookInvalidDebounce,
        ErrorCode::WebhookInvalidStatsWindow,
        ErrorCode::NotificationAccessDenied,
        ErrorCode::NotificationRequiresIdp,
        ErrorCode::EnvironmentNoDefault,
        ErrorCode::AnalyticsNotEnabled,
        ErrorCode::AiNotConfigured,
        ErrorCode::AiProviderUnavailable,
        ErrorCode::AiResponseParseFailed,
        ErrorCode::AiTranslateInvalid,
        ErrorCode::AiUrlSsrf,
        ErrorCode::AiVisionMissingImage,
        ErrorCode::AiSectionContextInsufficient,
        ErrorCode::AiSectionTypeUnknown,
        ErrorCode::AiContextInsufficient,
        ErrorCode::IdpNotConfigured,
        ErrorCode::IdpUserNotFound,
        ErrorCode::IdpApiFailed,
        ErrorCode::IdpInvalidIdentifier,
        ErrorCode::IdpInvalidRole,
        ErrorCode::WorkflowReviewRequired,
        ErrorCode::WorkflowInvalidStatus,
        ErrorCode::WorkflowNoPermission,
        ErrorCode::ModuleNotEnabled,
        ErrorCode::OnboardingRequiresIdp,
        ErrorCode::FormDuplicateFieldLabels,
        ErrorCode::FormTemplateNameExists,
        ErrorCode::BotProtectionMissing,
        ErrorCode::BotProtectionInvalid,
        ErrorCode::BotProtectionNotConfigured,
        ErrorCode::BotProtectionProviderError,
        ErrorCode::FormValidationFailed,
        ErrorCode::FormConsentRequired,
        ErrorCode::SubmissionDeleted,
        ErrorCode::InvalidReferenceCode,
        ErrorCode::InvalidStatusTransition,
        ErrorCode::ValidationRequiredField,
        ErrorCode::ValidationInvalidFormat,
        ErrorCode::ValidationOutOfRange,
        ErrorCode::RateLimitExceeded,
        ErrorCode::ServiceUnavailable,
        ErrorCode::InternalError,
        ErrorCode::DatabaseError,
        ErrorCode::StorageError,
        ErrorCode::ResourceNotFound,
        ErrorCode::BadRequest,
        ErrorCode::ValidationError,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::Conflict,
        ErrorCode::PayloadTooLarge,
        ErrorCode::AccountSuspended,
        ErrorCode::AccountBanned,
        ErrorCode::MethodNotAllowed,
        ErrorCode::UnsupportedMediaType,
    ];

    /// `(code, http status, domain, description)`
    const fn entry(self) -> (&'static str, u16, &'static str, &'static str) {
        match self {
            ErrorCode::EntityNotFound => ("ENTITY_NOT_FOUND", 404, "entity", "entity does not exist"),
            ErrorCode::EntitySlugTaken => ("ENTITY_SLUG_TAKEN", 409, "entity", "slug already used"),
            ErrorCode::EntityLocalizationExists => {
                ("ENTITY_LOCALIZATION_EXISTS", 400, "entity", "localization for locale exists")
            }
            ErrorCode::EntityLocalizationNotFound => {
                ("ENTITY_LOCALIZATION_NOT_FOUND", 404, "entity", "no localization for entity and locale")
            }
            ErrorCode::SiteCreateRequiresAdmin => {
                ("SITE_CREATE_REQUIRES_ADMIN", 403, "sites", "admin key required to create sites")
            }
            ErrorCode::SiteCreateInvalidLocales => {
                ("SITE_CREATE_INVALID_LOCALES", 400, "sites", "exactly one default locale required")
            }
            ErrorCode::SiteCreateScopedKey => {
                ("SITE_CREATE_SCOPED_KEY", 403, "sites", "site-scoped keys cannot create sites")
            }
            ErrorCode::SiteRestoreExpired => ("SITE_RESTORE_EXPIRED", 410, "sites", "30-day restore window lapsed"),
            ErrorCode::SiteExportForbidden => {
                ("SITE_EXPORT_FORBIDDEN", 403, "sites", "only owner, site admin or system admin may export")
            }
            ErrorCode::SiteExportJobNotFound => {
                ("SITE_EXPORT_JOB_NOT_FOUND", 404, "sites", "job missing or artifact expired")
            }
            ErrorCode::SiteExportAlreadyRunning => {
                ("SITE_EXPORT_ALREADY_RUNNING", 409, "sites", "export already queued or running")
            }
            ErrorCode::SiteExportFailed => {
                ("SITE_EXPORT_FAILED", 500, "sites", "worker failed to build or store archive")
            }
            ErrorCode::BlogSampleExists => ("BLOG_SAMPLE_EXISTS", 400, "blogs", "sample content exists"),
            ErrorCode::BlogNoDefaultLocale => ("BLOG_NO_DEFAULT_LOCALE", 400, "blogs", "no default locale for site"),
            ErrorCode::BlogBulkStatusRequired => {
                ("BLOG_BULK_STATUS_REQUIRED", 400, "blogs", "status needed for UpdateStatus")
            }
            ErrorCode::PageBulkStatusRequired => ("PAGE_BULK_STATUS_REQUIRED", 400, "pages", "same, pages"),
            ErrorCode::CvBulkStatusRequired => ("CV_BULK_STATUS_REQUIRED", 400, "cv", "same, CV entries"),
            ErrorCode::ProjectBulkStatusRequired => ("PROJECT_BULK_STATUS_REQUIRED", 400, "projects", "same, projects"),
            ErrorCode::ContentInvalidStatus => ("CONTENT_INVALID_STATUS", 400, "content", "invalid status transition"),
            ErrorCode::ContentPublishDateInvalid => {
                ("CONTENT_PUBLISH_DATE_INVALID", 400, "content", "publish_end must be after publish_start")
            }
            ErrorCode::ContentUnknownEntityType => {
                ("CONTENT_UNKNOWN_ENTITY_TYPE", 400, "content", "unknown content entity type")
            }
            ErrorCode::ContentNoDefaultEnvironment => {
                ("CONTENT_NO_DEFAULT_ENVIRONMENT", 400, "content", "no default environment")
            }
            ErrorCode::ContentSlugGenerationFailed => {
                ("CONTENT_SLUG_GENERATION_FAILED", 400, "content", "no unique slug, too many copies")
            }
            ErrorCode::ContentRouteGenerationFailed => {
                ("CONTENT_ROUTE_GENERATION_FAILED", 400, "content", "no unique route, too many copies")
            }
            ErrorCode::ContentReviewInvalidStatus => {
                ("CONTENT_REVIEW_INVALID_STATUS", 400, "content", "must be InReview to review")
            }
            ErrorCode::DocumentPasswordRequired => ("DOCUMENT_PASSWORD_REQUIRED", 401, "documents", "password needed"),
            ErrorCode::DocumentPasswordIncorrect => ("DOCUMENT_PASSWORD_INCORRECT", 403, "documents", "wrong password"),
            ErrorCode::DocumentAccessRateLimited => {
                ("DOCUMENT_ACCESS_RATE_LIMITED", 429, "documents", "too many failed attempts")
            }
            ErrorCode::DocumentEncryptionFailed => {
                ("DOCUMENT_ENCRYPTION_FAILED", 500, "documents", "encryption failed")
            }
            ErrorCode::DocumentDecryptionFailed => {
                ("DOCUMENT_DECRYPTION_FAILED", 500, "documents", "decryption failed")
            }
            ErrorCode::DocumentNotUploadable => {
                ("DOCUMENT_NOT_UPLOADABLE", 400, "documents", "only uploaded documents can be protected")
            }
            ErrorCode::DocumentExpired => {
                ("DOCUMENT_EXPIRED", 410, "documents", "private document access window expired")
            }
            ErrorCode::DocumentLocked => {
                ("DOCUMENT_LOCKED", 423, "documents", "locked after 3 failed attempts, admin unlock needed")
            }
            ErrorCode::DocumentNotLocked => {
                ("DOCUMENT_NOT_LOCKED", 409, "documents", "unlock requested on unlocked document")
            }
            ErrorCode::DocumentInvalidTtl => (
                "DOCUMENT_INVALID_TTL",
                400,
                "documents",
                "expires_at must be in the future and at most one year ahead",
            ),
            ErrorCode::MediaUploadTooLarge => ("MEDIA_UPLOAD_TOO_LARGE", 400, "media", "file exceeds maximum size"),
            ErrorCode::MediaUploadInvalidType => ("MEDIA_UPLOAD_INVALID_TYPE", 400, "media", "type not allowed"),
            ErrorCode::MediaUploadEmpty => ("MEDIA_UPLOAD_EMPTY", 400, "media", "empty file or no data"),
            ErrorCode::MediaUploadNoData => ("MEDIA_UPLOAD_NO_DATA", 400, "media", "no file data in request"),
            ErrorCode::MediaUploadReadFailed => ("MEDIA_UPLOAD_READ_FAILED", 500, "media", "reading upload failed"),
            ErrorCode::MediaTagInvalid => ("MEDIA_TAG_INVALID", 400, "media", "invalid tag format"),
            ErrorCode::MediaTooManyTags => ("MEDIA_TOO_MANY_TAGS", 400, "media", "too many tags"),
            ErrorCode::StorageQuotaExceeded => {
                ("STORAGE_QUOTA_EXCEEDED", 413, "storage", "per-site storage quota exceeded")
            }
            ErrorCode::TrashAlreadyRestored => ("TRASH_ALREADY_RESTORED", 400, "trash", "item not in trash"),
            ErrorCode::TrashNotDeleted => ("TRASH_NOT_DELETED", 400, "trash", "item not soft-deleted"),
            ErrorCode::AuthMissingCredentials => {
                ("AUTH_MISSING_CREDENTIALS", 401, "auth", "no bearer token or X-API-Key")
            }
            ErrorCode::AuthTokenInvalid => ("AUTH_TOKEN_INVALID", 401, "auth", "token invalid or expired"),
            ErrorCode::AuthTokenAudience => ("AUTH_TOKEN_AUDIENCE", 401, "auth", "aud claim mismatch"),
            ErrorCode::AuthTokenIssuer => ("AUTH_TOKEN_ISSUER", 401, "auth", "iss claim mismatch"),
            ErrorCode::AuthInsufficientRole => ("AUTH_INSUFFICIENT_ROLE", 403, "auth", "role too low"),
            ErrorCode::AuthSiteAccessDenied => ("AUTH_SITE_ACCESS_DENIED", 403, "auth", "no access to site"),
            ErrorCode::AuthApiKeyInvalid => ("AUTH_API_KEY_INVALID", 401, "auth", "API key invalid"),
            ErrorCode::AuthApiKeySiteDenied => ("AUTH_API_KEY_SITE_DENIED", 403, "auth", "key lacks access to site"),
            ErrorCode::AuthAccountSoleOwner => {
                ("AUTH_ACCOUNT_SOLE_OWNER", 409, "auth", "sole owner cannot delete account")
            }
            ErrorCode::AuthIdpNotConfigured => {
                ("AUTH_IDP_NOT_CONFIGURED", 500, "auth", "identity provider not configured")
            }
            ErrorCode::AuthRateLimited => ("AUTH_RATE_LIMITED", 429, "auth", "too many failed authentications"),
            ErrorCode::ApiKeyPermissionExceeded => {
                ("API_KEY_PERMISSION_EXCEEDED", 403, "api_key", "cannot create key with requested permission")
            }
            ErrorCode::ApiKeyInvalidStatus => ("API_KEY_INVALID_STATUS", 422, "api_key", "invalid key status"),
            ErrorCode::ApiKeyInvalidPermission => {
                ("API_KEY_INVALID_PERMISSION", 422, "api_key", "invalid key permission")
            }
            ErrorCode::ApiKeySiteFilterRequired => (
                "API_KEY_SITE_FILTER_REQUIRED",
                403,
                "api_key",
                "site admins must give site_id filter when listing keys",
            ),
            ErrorCode::LocaleCodeTaken => ("LOCALE_CODE_TAKEN", 409, "locales", "locale code exists"),
            ErrorCode::LocaleDeleteInUse => ("LOCALE_DELETE_IN_USE", 409, "locales", "locale assigned to sites"),
            ErrorCode::SiteLocaleLastLanguage => {
                ("SITE_LOCALE_LAST_LANGUAGE", 409, "sites", "cannot remove last language")
            }
            ErrorCode::MemberAlreadyExists => ("MEMBER_ALREADY_EXISTS", 409, "members", "already a member"),
            ErrorCode::MemberRoleOwnerRequired => {
                ("MEMBER_ROLE_OWNER_REQUIRED", 403, "members", "only owner assigns Admin or Owner")
            }
            ErrorCode::MemberCannotRemoveOwner => {
                ("MEMBER_CANNOT_REMOVE_OWNER", 403, "members", "transfer ownership first")
            }
            ErrorCode::MemberRequiresIdpAuth => {
                ("MEMBER_REQUIRES_IDP_AUTH", 400, "members", "needs JWT authentication")
            }
            ErrorCode::SiteOwnerCannotLeave => {
                ("SITE_OWNER_CANNOT_LEAVE", 403, "sites", "owner must transfer ownership")
            }
            ErrorCode::LegalPublishMissingTitle => {
                ("LEGAL_PUBLISH_MISSING_TITLE", 400, "legal", "title needed before publishing")
            }
            ErrorCode::LegalPublishMissingBody => {
                ("LEGAL_PUBLISH_MISSING_BODY", 400, "legal", "content needed before publishing")
            }
            ErrorCode::LegalVersionSourceDeleted => {
                ("LEGAL_VERSION_SOURCE_DELETED", 404, "legal", "cannot version a deleted document")
            }
            ErrorCode::RedirectSamePath => ("REDIRECT_SAME_PATH", 400, "redirects", "source equals destination"),
            ErrorCode::WebhookTestFailed => ("WEBHOOK_TEST_FAILED", 500, "webhooks", "test delivery failed"),
            ErrorCode::WebhookUrlSsrf => ("WEBHOOK_URL_SSRF", 400, "webhooks", "URL targets private network"),
            ErrorCode::WebhookInvalidDebounce => {
                ("WEBHOOK_INVALID_DEBOUNCE", 422, "webhooks", "debounce outside 0-300")
            }
            ErrorCode::WebhookInvalidStatsWindow => {
                ("WEBHOOK_INVALID_STATS_WINDOW", 400, "webhooks", "window not 1h, 24h, 7d, 30d")
            }
            ErrorCode::NotificationAccessDenied => {
                ("NOTIFICATION_ACCESS_DENIED", 403, "notifications", "only own notifications")
            }
            ErrorCode::NotificationRequiresIdp => {
                ("NOTIFICATION_REQUIRES_IDP", 403, "notifications", "needs JWT authentication")
            }
            ErrorCode::EnvironmentNoDefault => {
                ("ENVIRONMENT_NO_DEFAULT", 404, "environments", "no default environment")
            }
            ErrorCode::AnalyticsNotEnabled => {
                ("ANALYTICS_NOT_ENABLED", 403, "analytics", "analytics disabled for site")
            }
            ErrorCode::AiNotConfigured => ("AI_NOT_CONFIGURED", 400, "ai", "AI not configured"),
            ErrorCode::AiProviderUnavailable => ("AI_PROVIDER_UNAVAILABLE", 503, "ai", "AI provider failed"),
            ErrorCode::AiResponseParseFailed => ("AI_RESPONSE_PARSE_FAILED", 500, "ai", "AI response unparsable"),
            ErrorCode::AiTranslateInvalid => ("AI_TRANSLATE_INVALID", 400, "ai", "invalid translation request"),
            ErrorCode::AiUrlSsrf => ("AI_URL_SSRF", 400, "ai", "AI base URL targets private network"),
            ErrorCode::AiVisionMissingImage => {
                ("AI_VISION_MISSING_IMAGE", 400, "ai", "image_url required for auto_tag, alt_text")
            }
            ErrorCode::AiSectionContextInsufficient => (
                "AI_SECTION_CONTEXT_INSUFFICIENT",
                400,
                "ai",
                "section_context with section_type required for section_content",
            ),
            ErrorCode::AiSectionTypeUnknown => ("AI_SECTION_TYPE_UNKNOWN", 400, "ai", "unknown section type"),
            ErrorCode::AiContextInsufficient => {
                ("AI_CONTEXT_INSUFFICIENT", 400, "ai", "content too short for a suggestion")
            }
            ErrorCode::IdpNotConfigured => {
                ("IDP_NOT_CONFIGURED", 500, "idp", "identity provider service not configured")
            }
            ErrorCode::IdpUserNotFound => ("IDP_USER_NOT_FOUND", 404, "idp", "user does not exist"),
            ErrorCode::IdpApiFailed => ("IDP_API_FAILED", 500, "idp", "identity provider request failed"),
            ErrorCode::IdpInvalidIdentifier => ("IDP_INVALID_IDENTIFIER", 400, "idp", "invalid user identifier"),
            ErrorCode::IdpInvalidRole => ("IDP_INVALID_ROLE", 422, "idp", "invalid role"),
            ErrorCode::WorkflowReviewRequired => {
                ("WORKFLOW_REVIEW_REQUIRED", 403, "workflow", "must be reviewed before publishing")
            }
            ErrorCode::WorkflowInvalidStatus => {
                ("WORKFLOW_INVALID_STATUS", 403, "workflow", "reviewers only transition InReview content")
            }
            ErrorCode::WorkflowNoPermission => {
                ("WORKFLOW_NO_PERMISSION", 403, "workflow", "no permission to change status")
            }
            ErrorCode::ModuleNotEnabled => ("MODULE_NOT_ENABLED", 403, "modules", "module disabled for site"),
            ErrorCode::OnboardingRequiresIdp => {
                ("ONBOARDING_REQUIRES_IDP", 400, "onboarding", "needs JWT authentication")
            }
            ErrorCode::FormDuplicateFieldLabels => {
                ("FORM_DUPLICATE_FIELD_LABELS", 400, "forms", "duplicate field labels")
            }
            ErrorCode::FormTemplateNameExists => ("FORM_TEMPLATE_NAME_EXISTS", 409, "forms", "template name used"),
            ErrorCode::BotProtectionMissing => ("BOT_PROTECTION_MISSING", 400, "forms", "token required, none given"),
            ErrorCode::BotProtectionInvalid => {
                ("BOT_PROTECTION_INVALID", 400, "forms", "token failed, expired or replayed")
            }
            ErrorCode::BotProtectionNotConfigured => {
                ("BOT_PROTECTION_NOT_CONFIGURED", 503, "forms", "mandatory form but no verifier set up")
            }
            ErrorCode::BotProtectionProviderError => {
                ("BOT_PROTECTION_PROVIDER_ERROR", 503, "forms", "remote verifier unreachable or unexpected reply")
            }
            ErrorCode::FormValidationFailed => {
                ("FORM_VALIDATION_FAILED", 400, "forms", "submission field validation failed")
            }
            ErrorCode::FormConsentRequired => ("FORM_CONSENT_REQUIRED", 400, "forms", "consent_given was false"),
            ErrorCode::SubmissionDeleted => ("SUBMISSION_DELETED", 410, "forms", "submission already deleted"),
            ErrorCode::InvalidReferenceCode => ("INVALID_REFERENCE_CODE", 404, "forms", "reference code unknown"),
            ErrorCode::InvalidStatusTransition => {
                ("INVALID_STATUS_TRANSITION", 400, "forms", "submission status move not allowed")
            }
            ErrorCode::ValidationRequiredField => {
                ("VALIDATION_REQUIRED_FIELD", 422, "validation", "required field missing")
            }
            ErrorCode::ValidationInvalidFormat => ("VALIDATION_INVALID_FORMAT", 422, "validation", "invalid format"),
            ErrorCode::ValidationOutOfRange => ("VALIDATION_OUT_OF_RANGE", 422, "validation", "value out of range"),
            ErrorCode::RateLimitExceeded => ("RATE_LIMIT_EXCEEDED", 429, "general", "rate limit exceeded"),
            ErrorCode::ServiceUnavailable => ("SERVICE_UNAVAILABLE", 503, "general", "required service unavailable"),
            ErrorCode::InternalError => ("INTERNAL_ERROR", 500, "general", "unexpected error"),
            ErrorCode::DatabaseError => ("DATABASE_ERROR", 500, "general", "database error"),
            ErrorCode::StorageError => ("STORAGE_ERROR", 500, "general", "storage backend error"),
            ErrorCode::ResourceNotFound => ("RESOURCE_NOT_FOUND", 404, "general", "generic not found"),
            ErrorCode::BadRequest => ("BAD_REQUEST", 400, "general", "generic malformed request"),
            ErrorCode::ValidationError => ("VALIDATION_ERROR", 422, "general", "generic validation failure"),
            ErrorCode::Unauthorized => ("UNAUTHORIZED", 401, "general", "generic authentication required"),
            ErrorCode::Forbidden => ("FORBIDDEN", 403, "general", "generic forbidden"),
            ErrorCode::Conflict => ("CONFLICT", 409, "general", "generic conflict"),
            ErrorCode::PayloadTooLarge => ("PAYLOAD_TOO_LARGE", 413, "general", "generic payload too large"),
            ErrorCode::AccountSuspended => ("ACCOUNT_SUSPENDED", 403, "auth", "account suspended"),
            ErrorCode::AccountBanned => ("ACCOUNT_BANNED", 403, "auth", "account banned"),
            ErrorCode::MethodNotAllowed => {
                ("METHOD_NOT_ALLOWED", 405, "general", "generic method not allowed for this path")
            }
            ErrorCode::UnsupportedMediaType => {
                ("UNSUPPORTED_MEDIA_TYPE", 415, "general", "generic unsupported request content type")
            }
        }
    }

    pub const fn as_str(self) -> &'static str {
        self.entry().0
    }

    pub fn status(self) -> StatusCode {
        StatusCode::from_u16(self.entry().1).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    pub const fn domain(self) -> &'static str {
        self.entry().2
    }

    pub const fn description(self) -> &'static str {
        self.entry().3
    }
}
