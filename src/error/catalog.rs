//! The error catalog: every code of the spec's Errors section (plus the
//! ACCOUNT_* codes and two generic HTTP codes), generated from the spec's table.
//! A code string never changes once shipped: add new variants, never rename.

use actix_web::http::StatusCode;

/// Declares [`ErrorCode`] from one table: each row names the variant once, with
/// its code string, HTTP status, domain and meaning (the variant's doc).
macro_rules! catalog {
    ($($variant:ident => ($code:literal, $status:literal, $domain:literal, $meaning:literal $(,)?),)+) => {
        /// A stable machine code with its HTTP status, domain and meaning.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $(#[doc = $meaning] $variant,)+
        }

        impl ErrorCode {
            /// Every code, in catalog order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)+];

            /// `(code, http status, domain, meaning)`
            const fn entry(self) -> (&'static str, u16, &'static str, &'static str) {
                match self {
                    $(ErrorCode::$variant => ($code, $status, $domain, $meaning),)+
                }
            }
        }
    };
}

catalog! {
    EntityNotFound => ("ENTITY_NOT_FOUND", 404, "entity", "entity does not exist"),
    EntitySlugTaken => ("ENTITY_SLUG_TAKEN", 409, "entity", "slug already used"),
    EntityLocalizationExists => ("ENTITY_LOCALIZATION_EXISTS", 400, "entity", "localization for locale exists"),
    EntityLocalizationNotFound => (
        "ENTITY_LOCALIZATION_NOT_FOUND", 404, "entity",
        "no localization for entity and locale"
    ),
    SiteCreateRequiresAdmin => ("SITE_CREATE_REQUIRES_ADMIN", 403, "sites", "admin key required to create sites"),
    SiteCreateInvalidLocales => ("SITE_CREATE_INVALID_LOCALES", 400, "sites", "exactly one default locale required"),
    SiteCreateScopedKey => ("SITE_CREATE_SCOPED_KEY", 403, "sites", "site-scoped keys cannot create sites"),
    SiteRestoreExpired => ("SITE_RESTORE_EXPIRED", 410, "sites", "30-day restore window lapsed"),
    SiteExportForbidden => ("SITE_EXPORT_FORBIDDEN", 403, "sites", "only owner, site admin or system admin may export"),
    SiteExportJobNotFound => ("SITE_EXPORT_JOB_NOT_FOUND", 404, "sites", "job missing or artifact expired"),
    SiteExportAlreadyRunning => ("SITE_EXPORT_ALREADY_RUNNING", 409, "sites", "export already queued or running"),
    SiteExportFailed => ("SITE_EXPORT_FAILED", 500, "sites", "worker failed to build or store archive"),
    BlogSampleExists => ("BLOG_SAMPLE_EXISTS", 400, "blogs", "sample content exists"),
    BlogNoDefaultLocale => ("BLOG_NO_DEFAULT_LOCALE", 400, "blogs", "no default locale for site"),
    BlogBulkStatusRequired => ("BLOG_BULK_STATUS_REQUIRED", 400, "blogs", "status needed for UpdateStatus"),
    PageBulkStatusRequired => ("PAGE_BULK_STATUS_REQUIRED", 400, "pages", "same, pages"),
    CvBulkStatusRequired => ("CV_BULK_STATUS_REQUIRED", 400, "cv", "same, CV entries"),
    ProjectBulkStatusRequired => ("PROJECT_BULK_STATUS_REQUIRED", 400, "projects", "same, projects"),
    ContentInvalidStatus => ("CONTENT_INVALID_STATUS", 400, "content", "invalid status transition"),
    ContentPublishDateInvalid => (
        "CONTENT_PUBLISH_DATE_INVALID", 400, "content",
        "publish_end must be after publish_start"
    ),
    ContentUnknownEntityType => ("CONTENT_UNKNOWN_ENTITY_TYPE", 400, "content", "unknown content entity type"),
    ContentNoDefaultEnvironment => ("CONTENT_NO_DEFAULT_ENVIRONMENT", 400, "content", "no default environment"),
    ContentSlugGenerationFailed => (
        "CONTENT_SLUG_GENERATION_FAILED", 400, "content",
        "no unique slug, too many copies"
    ),
    ContentRouteGenerationFailed => (
        "CONTENT_ROUTE_GENERATION_FAILED", 400, "content",
        "no unique route, too many copies"
    ),
    ContentReviewInvalidStatus => ("CONTENT_REVIEW_INVALID_STATUS", 400, "content", "must be InReview to review"),
    DocumentPasswordRequired => ("DOCUMENT_PASSWORD_REQUIRED", 401, "documents", "password needed"),
    DocumentPasswordIncorrect => ("DOCUMENT_PASSWORD_INCORRECT", 403, "documents", "wrong password"),
    DocumentAccessRateLimited => ("DOCUMENT_ACCESS_RATE_LIMITED", 429, "documents", "too many failed attempts"),
    DocumentEncryptionFailed => ("DOCUMENT_ENCRYPTION_FAILED", 500, "documents", "encryption failed"),
    DocumentDecryptionFailed => ("DOCUMENT_DECRYPTION_FAILED", 500, "documents", "decryption failed"),
    DocumentNotUploadable => ("DOCUMENT_NOT_UPLOADABLE", 400, "documents", "only uploaded documents can be protected"),
    DocumentExpired => ("DOCUMENT_EXPIRED", 410, "documents", "private document access window expired"),
    DocumentLocked => ("DOCUMENT_LOCKED", 423, "documents", "locked after 3 failed attempts, admin unlock needed"),
    DocumentNotLocked => ("DOCUMENT_NOT_LOCKED", 409, "documents", "unlock requested on unlocked document"),
    DocumentInvalidTtl => (
        "DOCUMENT_INVALID_TTL", 400, "documents",
        "expires_at must be in the future and at most one year ahead"
    ),
    MediaUploadTooLarge => ("MEDIA_UPLOAD_TOO_LARGE", 400, "media", "file exceeds maximum size"),
    MediaUploadInvalidType => ("MEDIA_UPLOAD_INVALID_TYPE", 400, "media", "type not allowed"),
    MediaUploadEmpty => ("MEDIA_UPLOAD_EMPTY", 400, "media", "empty file or no data"),
    MediaUploadNoData => ("MEDIA_UPLOAD_NO_DATA", 400, "media", "no file data in request"),
    MediaUploadReadFailed => ("MEDIA_UPLOAD_READ_FAILED", 500, "media", "reading upload failed"),
    MediaTagInvalid => ("MEDIA_TAG_INVALID", 400, "media", "invalid tag format"),
    MediaTooManyTags => ("MEDIA_TOO_MANY_TAGS", 400, "media", "too many tags"),
    StorageQuotaExceeded => ("STORAGE_QUOTA_EXCEEDED", 413, "storage", "per-site storage quota exceeded"),
    TrashAlreadyRestored => ("TRASH_ALREADY_RESTORED", 400, "trash", "item not in trash"),
    TrashNotDeleted => ("TRASH_NOT_DELETED", 400, "trash", "item not soft-deleted"),
    AuthMissingCredentials => ("AUTH_MISSING_CREDENTIALS", 401, "auth", "no bearer token or X-API-Key"),
    AuthTokenInvalid => ("AUTH_TOKEN_INVALID", 401, "auth", "token invalid or expired"),
    AuthTokenAudience => ("AUTH_TOKEN_AUDIENCE", 401, "auth", "aud claim mismatch"),
    AuthTokenIssuer => ("AUTH_TOKEN_ISSUER", 401, "auth", "iss claim mismatch"),
    AuthInsufficientRole => ("AUTH_INSUFFICIENT_ROLE", 403, "auth", "role too low"),
    AuthSiteAccessDenied => ("AUTH_SITE_ACCESS_DENIED", 403, "auth", "no access to site"),
    AuthApiKeyInvalid => ("AUTH_API_KEY_INVALID", 401, "auth", "API key invalid"),
    AuthApiKeySiteDenied => ("AUTH_API_KEY_SITE_DENIED", 403, "auth", "key lacks access to site"),
    AuthAccountSoleOwner => ("AUTH_ACCOUNT_SOLE_OWNER", 409, "auth", "sole owner cannot delete account"),
    AuthIdpNotConfigured => ("AUTH_IDP_NOT_CONFIGURED", 500, "auth", "identity provider not configured"),
    AuthRateLimited => ("AUTH_RATE_LIMITED", 429, "auth", "too many failed authentications"),
    ApiKeyPermissionExceeded => (
        "API_KEY_PERMISSION_EXCEEDED", 403, "api_key",
        "cannot create key with requested permission"
    ),
    ApiKeyInvalidStatus => ("API_KEY_INVALID_STATUS", 422, "api_key", "invalid key status"),
    ApiKeyInvalidPermission => ("API_KEY_INVALID_PERMISSION", 422, "api_key", "invalid key permission"),
    ApiKeySiteFilterRequired => (
        "API_KEY_SITE_FILTER_REQUIRED", 403, "api_key",
        "site admins must give site_id filter when listing keys"
    ),
    LocaleCodeTaken => ("LOCALE_CODE_TAKEN", 409, "locales", "locale code exists"),
    LocaleDeleteInUse => ("LOCALE_DELETE_IN_USE", 409, "locales", "locale assigned to sites"),
    SiteLocaleLastLanguage => ("SITE_LOCALE_LAST_LANGUAGE", 409, "sites", "cannot remove last language"),
    MemberAlreadyExists => ("MEMBER_ALREADY_EXISTS", 409, "members", "already a member"),
    MemberRoleOwnerRequired => ("MEMBER_ROLE_OWNER_REQUIRED", 403, "members", "only owner assigns Admin or Owner"),
    MemberCannotRemoveOwner => ("MEMBER_CANNOT_REMOVE_OWNER", 403, "members", "transfer ownership first"),
    MemberRequiresIdpAuth => ("MEMBER_REQUIRES_IDP_AUTH", 400, "members", "needs JWT authentication"),
    SiteOwnerCannotLeave => ("SITE_OWNER_CANNOT_LEAVE", 403, "sites", "owner must transfer ownership"),
    LegalPublishMissingTitle => ("LEGAL_PUBLISH_MISSING_TITLE", 400, "legal", "title needed before publishing"),
    LegalPublishMissingBody => ("LEGAL_PUBLISH_MISSING_BODY", 400, "legal", "content needed before publishing"),
    LegalVersionSourceDeleted => ("LEGAL_VERSION_SOURCE_DELETED", 404, "legal", "cannot version a deleted document"),
    RedirectSamePath => ("REDIRECT_SAME_PATH", 400, "redirects", "source equals destination"),
    WebhookTestFailed => ("WEBHOOK_TEST_FAILED", 500, "webhooks", "test delivery failed"),
    WebhookUrlSsrf => ("WEBHOOK_URL_SSRF", 400, "webhooks", "URL targets private network"),
    WebhookInvalidDebounce => ("WEBHOOK_INVALID_DEBOUNCE", 422, "webhooks", "debounce outside 0-300"),
    WebhookInvalidStatsWindow => ("WEBHOOK_INVALID_STATS_WINDOW", 400, "webhooks", "window not 1h, 24h, 7d, 30d"),
    NotificationAccessDenied => ("NOTIFICATION_ACCESS_DENIED", 403, "notifications", "only own notifications"),
    NotificationRequiresIdp => ("NOTIFICATION_REQUIRES_IDP", 403, "notifications", "needs JWT authentication"),
    EnvironmentNoDefault => ("ENVIRONMENT_NO_DEFAULT", 404, "environments", "no default environment"),
    AnalyticsNotEnabled => ("ANALYTICS_NOT_ENABLED", 403, "analytics", "analytics disabled for site"),
    AiNotConfigured => ("AI_NOT_CONFIGURED", 400, "ai", "AI not configured"),
    AiProviderUnavailable => ("AI_PROVIDER_UNAVAILABLE", 503, "ai", "AI provider failed"),
    AiResponseParseFailed => ("AI_RESPONSE_PARSE_FAILED", 500, "ai", "AI response unparsable"),
    AiTranslateInvalid => ("AI_TRANSLATE_INVALID", 400, "ai", "invalid translation request"),
    AiUrlSsrf => ("AI_URL_SSRF", 400, "ai", "AI base URL targets private network"),
    AiVisionMissingImage => ("AI_VISION_MISSING_IMAGE", 400, "ai", "image_url required for auto_tag, alt_text"),
    AiSectionContextInsufficient => (
        "AI_SECTION_CONTEXT_INSUFFICIENT", 400, "ai",
        "section_context with section_type required for section_content"
    ),
    AiSectionTypeUnknown => ("AI_SECTION_TYPE_UNKNOWN", 400, "ai", "unknown section type"),
    AiContextInsufficient => ("AI_CONTEXT_INSUFFICIENT", 400, "ai", "content too short for a suggestion"),
    IdpNotConfigured => ("IDP_NOT_CONFIGURED", 500, "idp", "identity provider service not configured"),
    IdpUserNotFound => ("IDP_USER_NOT_FOUND", 404, "idp", "user does not exist"),
    IdpApiFailed => ("IDP_API_FAILED", 500, "idp", "identity provider request failed"),
    IdpInvalidIdentifier => ("IDP_INVALID_IDENTIFIER", 400, "idp", "invalid user identifier"),
    IdpInvalidRole => ("IDP_INVALID_ROLE", 422, "idp", "invalid role"),
    WorkflowReviewRequired => ("WORKFLOW_REVIEW_REQUIRED", 403, "workflow", "must be reviewed before publishing"),
    WorkflowInvalidStatus => ("WORKFLOW_INVALID_STATUS", 403, "workflow", "reviewers only transition InReview content"),
    WorkflowNoPermission => ("WORKFLOW_NO_PERMISSION", 403, "workflow", "no permission to change status"),
    ModuleNotEnabled => ("MODULE_NOT_ENABLED", 403, "modules", "module disabled for site"),
    OnboardingRequiresIdp => ("ONBOARDING_REQUIRES_IDP", 400, "onboarding", "needs JWT authentication"),
    FormDuplicateFieldLabels => ("FORM_DUPLICATE_FIELD_LABELS", 400, "forms", "duplicate field labels"),
    FormTemplateNameExists => ("FORM_TEMPLATE_NAME_EXISTS", 409, "forms", "template name used"),
    BotProtectionMissing => ("BOT_PROTECTION_MISSING", 400, "forms", "token required, none given"),
    BotProtectionInvalid => ("BOT_PROTECTION_INVALID", 400, "forms", "token failed, expired or replayed"),
    BotProtectionNotConfigured => (
        "BOT_PROTECTION_NOT_CONFIGURED", 503, "forms",
        "mandatory form but no verifier set up"
    ),
    BotProtectionProviderError => (
        "BOT_PROTECTION_PROVIDER_ERROR", 503, "forms",
        "remote verifier unreachable or unexpected reply"
    ),
    FormValidationFailed => ("FORM_VALIDATION_FAILED", 400, "forms", "submission field validation failed"),
    FormConsentRequired => ("FORM_CONSENT_REQUIRED", 400, "forms", "consent_given was false"),
    SubmissionDeleted => ("SUBMISSION_DELETED", 410, "forms", "submission already deleted"),
    InvalidReferenceCode => ("INVALID_REFERENCE_CODE", 404, "forms", "reference code unknown"),
    InvalidStatusTransition => ("INVALID_STATUS_TRANSITION", 400, "forms", "submission status move not allowed"),
    ValidationRequiredField => ("VALIDATION_REQUIRED_FIELD", 422, "validation", "required field missing"),
    ValidationInvalidFormat => ("VALIDATION_INVALID_FORMAT", 422, "validation", "invalid format"),
    ValidationOutOfRange => ("VALIDATION_OUT_OF_RANGE", 422, "validation", "value out of range"),
    RateLimitExceeded => ("RATE_LIMIT_EXCEEDED", 429, "general", "rate limit exceeded"),
    ServiceUnavailable => ("SERVICE_UNAVAILABLE", 503, "general", "required service unavailable"),
    InternalError => ("INTERNAL_ERROR", 500, "general", "unexpected error"),
    DatabaseError => ("DATABASE_ERROR", 500, "general", "database error"),
    StorageError => ("STORAGE_ERROR", 500, "general", "storage backend error"),
    ResourceNotFound => ("RESOURCE_NOT_FOUND", 404, "general", "generic not found"),
    BadRequest => ("BAD_REQUEST", 400, "general", "generic malformed request"),
    ValidationError => ("VALIDATION_ERROR", 422, "general", "generic validation failure"),
    Unauthorized => ("UNAUTHORIZED", 401, "general", "generic authentication required"),
    Forbidden => ("FORBIDDEN", 403, "general", "generic forbidden"),
    Conflict => ("CONFLICT", 409, "general", "generic conflict"),
    LeaseHeld => ("LEASE_HELD", 423, "content", "another caller holds the item's edit lease"),
    PreconditionFailed => (
        "PRECONDITION_FAILED", 412, "general",
        "the item changed since the version If-Match names"
    ),
    PayloadTooLarge => ("PAYLOAD_TOO_LARGE", 413, "general", "generic payload too large"),
    AccountSuspended => ("ACCOUNT_SUSPENDED", 403, "auth", "account suspended"),
    AccountBanned => ("ACCOUNT_BANNED", 403, "auth", "account banned"),
    MethodNotAllowed => ("METHOD_NOT_ALLOWED", 405, "general", "generic method not allowed for this path"),
    UnsupportedMediaType => ("UNSUPPORTED_MEDIA_TYPE", 415, "general", "generic unsupported request content type"),
    RangeNotSatisfiable => ("RANGE_NOT_SATISFIABLE", 416, "general", "generic byte range outside the file"),
    RequestTimeout => (
        "REQUEST_TIMEOUT", 408, "general",
        "the request head or body stopped arriving before it was complete"
    ),
    RequestHeaderFieldsTooLarge => (
        "REQUEST_HEADER_FIELDS_TOO_LARGE", 431, "general",
        "the request line and headers are larger than the server reads"
    ),
}

impl ErrorCode {
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
