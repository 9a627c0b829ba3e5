//! Periodic work that must run on one instance at a time (scheduled publishing,
//! purges, retention, debounce flushes): each pass first takes the job's lease
//! in the database. The holder renews it on every pass; if it dies, another
//! instance takes over once the lease has run out.

use chrono::{DateTime, Utc};
use plinth_entities::job_lease;
use sea_orm::sea_query::{Expr, ExprTrait, OnConflict};
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, Set};
use uuid::Uuid;

/// Takes or renews the lease `job` for `holder` until `until`; `true` when this
/// instance holds it now. One conditional statement, so two instances racing
/// for a lapsed lease cannot both win.
pub async fn try_hold<C: ConnectionTrait>(
    db: &C,
    job: &str,
    holder: Uuid,
    now: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<bool, DbErr> {
    // The row exists from the first pass on; inserting it is not taking it.
    job_lease::Entity::insert(job_lease::ActiveModel {
        name: Set(job.to_string()),
        holder: Set(Uuid::nil()),
        expires_at: Set(DateTime::<Utc>::UNIX_EPOCH),
    })
    .on_conflict(OnConflict::column(job_lease::Column::Name).do_nothing().to_owned())
    .exec_without_returning(db)
    .await?;
    let taken = job_lease::Entity::update_many()
        .col_expr(job_lease::Column::Holder, Expr::value(holder))
        .col_expr(job_lease::Column::ExpiresAt, Expr::value(until))
        .filter(job_lease::Column::Name.eq(job))
        .filter(job_lease::Column::Holder.eq(holder).or(job_lease::Column::ExpiresAt.lt(now)))
        .exec(db)
        .await?;
    Ok(taken.rows_affected == 1)
}

/// Gives the lease up (on shutdown), so another instance need not wait it out.
pub async fn release<C: ConnectionTrait>(db: &C, job: &str, holder: Uuid) -> Result<(), DbErr> {
    job_lease::Entity::update_many()
        .col_expr(job_lease::Column::ExpiresAt, Expr::value(DateTime::<Utc>::UNIX_EPOCH))
        .filter(job_lease::Column::Name.eq(job))
        .filter(job_lease::Column::Holder.eq(holder))
        .exec(db)
        .await?;
    Ok(())
}
