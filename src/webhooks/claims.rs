//! Which instance is sending a delivery, and taking deliveries back from an
//! instance that died mid-send.
//!
//! A delivery in flight carries `claimed_by` (the sending instance) and a due
//! time at the end of its lease. Recording the attempt clears the claim. If the
//! process dies in between, the delivery would wait out the lease; but an
//! instance keeps its id across restarts (a file in the data directory), so on
//! start it takes back everything it held at once. Claims of other instances
//! lapse with their lease (`webhooks.claim_lease_secs`).

use std::path::Path;

use chrono::{DateTime, Utc};
use plinth_entities::webhook_delivery;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter};
use uuid::Uuid;

use super::delivery::DeliveryStatus;
use crate::error::ApiResult;

const INSTANCE_FILE: &str = "instance-id";

/// This instance's id: read from `data_dir/instance-id`, written there the first
/// time. Instances sharing a data directory share an id, so each takes back the
/// other's claims on start (a resend with the same `webhook-id`, never a loss).
pub fn instance_id(data_dir: &Path) -> std::io::Result<Uuid> {
    let path = data_dir.join(INSTANCE_FILE);
    if let Ok(text) = std::fs::read_to_string(&path) {
        if let Ok(id) = Uuid::parse_str(text.trim()) {
            return Ok(id);
        }
    }
    std::fs::create_dir_all(data_dir)?;
    let id = Uuid::new_v4();
    std::fs::write(&path, id.to_string())?;
    Ok(id)
}

/// On start, before any send: the deliveries this instance held when it stopped
/// are due now. Returns how many.
pub async fn take_back_own(db: &DatabaseConnection, instance: Uuid, now: DateTime<Utc>) -> ApiResult<u64> {
    let result = webhook_delivery::Entity::update_many()
        .col_expr(webhook_delivery::Column::NextAttemptAt, Expr::value(now))
        .col_expr(webhook_delivery::Column::ClaimedBy, Expr::value(Option::<Uuid>::None))
        .filter(webhook_delivery::Column::ClaimedBy.eq(instance))
        .filter(webhook_delivery::Column::Status.is_in(DeliveryStatus::OPEN))
        .exec(db)
        .await?;
    Ok(result.rows_affected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instance_id_survives_a_restart() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let first = instance_id(dir.path())?;
        assert_eq!(instance_id(dir.path())?, first);
        assert_ne!(instance_id(tempfile::tempdir()?.path())?, first);
        Ok(())
    }
}
