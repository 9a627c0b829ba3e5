//! Blog endpoints: thin HTTP handlers over the content engine.

mod routes;
mod samples;

pub(crate) use routes::*;

use actix_web::web::{self, delete, get, post, put, resource};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(resource("/sites/{site_id}/blogs").route(get().to(list_blogs)))
        .service(resource("/sites/{site_id}/blogs/published").route(get().to(list_published_blogs)))
        .service(resource("/sites/{site_id}/blogs/featured").route(get().to(list_featured_blogs)))
        .service(resource("/sites/{site_id}/blogs/bulk").route(post().to(bulk_blogs)))
        .service(resource("/sites/{site_id}/blogs/seed").route(post().to(samples::seed_blogs)))
        .service(resource("/sites/{site_id}/blogs/samples").route(delete().to(samples::delete_sample_blogs)))
        .service(resource("/sites/{site_id}/blogs/by-slug/{slug}").route(get().to(get_blog_by_slug)))
        .service(resource("/sites/{site_id}/blogs/{id}/similar").route(get().to(similar_blogs)))
        .service(resource("/blogs").route(post().to(create_blog)))
        .service(
            resource("/blogs/localizations/{loc_id}")
                .route(put().to(update_blog_localization))
                .route(delete().to(delete_blog_localization)),
        )
        .service(
            resource("/blogs/{id}")
                .route(get().to(get_blog))
                .route(put().to(update_blog))
                .route(delete().to(delete_blog)),
        )
        .service(resource("/blogs/{id}/detail").route(get().to(get_blog_detail)))
        .service(resource("/blogs/{id}/clone").route(post().to(clone_blog)))
        .service(resource("/blogs/{id}/review").route(post().to(review_blog)))
        .service(
            resource("/blogs/{id}/localizations")
                .route(get().to(list_blog_localizations))
                .route(post().to(create_blog_localization)),
        );
}

pub(crate) use samples::{__path_delete_sample_blogs, __path_seed_blogs};
