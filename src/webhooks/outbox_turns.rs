//! Which outbox events the dispatcher takes next: each site's oldest, in turn
//! across sites, so a site writing flat out (or fanning out to many webhooks)
//! does not hold another site's events behind its backlog. A pass looks at up
//! to [`SITES_PER_PASS`] sites with events, starting after the last site the
//! previous pass looked at, and takes an even share of the batch from each;
//! within a site, events keep the order they happened in. Both reads are index
//! range scans on `ix_event_outbox_site_seq`: the sites by a loose index scan
//! (one probe per site), each site's oldest by its own range.

use std::collections::HashMap;
use std::sync::Mutex;

use plinth_entities::event_outbox;
use sea_orm::{ConnectionTrait, DbBackend, DbErr, EntityTrait, Statement, Value};
use uuid::Uuid;

/// Sites whose events one pass takes in turn.
pub const SITES_PER_PASS: usize = 32;

#[derive(Default)]
pub struct OutboxTurns {
    /// The last site the previous pass looked at (nil before the first).
    after: Mutex<Uuid>,
    /// The site whose event came first in the previous pass.
    led: Mutex<Option<Uuid>>,
}

/// What a pass takes: events in turn, and whether they are all there were.
pub struct Turn {
    pub events: Vec<event_outbox::Model>,
    /// No site had more events than these (when the pass began).
    pub all_there_were: bool,
}

impl OutboxTurns {
    /// Up to about `batch` events, the sites' oldest taken in turn: the first
    /// of each site, then the second of each, and so on.
    pub async fn next_events(&self, db: &impl ConnectionTrait, batch: usize) -> Result<Turn, DbErr> {
        let mut sites = sites_with_events(db, None, SITES_PER_PASS).await?;
        if sites.len() < SITES_PER_PASS {
            // All of them, led by the one after the previous pass's leader.
            let previous = *self.led.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            sites = led_after(sites, previous);
        } else {
            // More sites have events than a pass takes: start after the last
            // one served, and round again from the first to fill the pass.
            let after = *self.after.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let mut rotated = sites_with_events(db, Some(after), SITES_PER_PASS).await?;
            rotated.extend(sites.into_iter().filter(|site| *site <= after).take(SITES_PER_PASS - rotated.len()));
            sites = rotated;
        }
        let Some(last) = sites.last() else { return Ok(Turn { events: Vec::new(), all_there_were: true }) };
        *self.after.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = *last;
        *self.led.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = sites.first().copied();
        let per_site = (batch / sites.len()).max(1);
        let events = oldest_of(db, &sites, per_site).await?;
        let mut counts: HashMap<Uuid, usize> = HashMap::new();
        for event in &events {
            *counts.entry(event.site_id).or_default() += 1;
        }
        let all_there_were = sites.len() < SITES_PER_PASS && counts.values().all(|n| *n < per_site);
        Ok(Turn { events: in_turn(events, &sites), all_there_were })
    }
}

/// Up to `limit` sites with events, in id order after `after` (all sites when `None`).
async fn sites_with_events(db: &impl ConnectionTrait, after: Option<Uuid>, limit: usize) -> Result<Vec<Uuid>, DbErr> {
    let rows = db.query_all_raw(sites_with_events_query(db.get_database_backend(), after, limit)).await?;
    rows.iter().map(|row| row.try_get::<Uuid>("", "site_id")).collect()
}

/// The statement of [`sites_with_events`]: a loose index scan, one probe of
/// `ix_event_outbox_site_seq` per site (public for the plan tests).
pub fn sites_with_events_query(backend: DbBackend, after: Option<Uuid>, limit: usize) -> Statement {
    let (first, values) = match after {
        Some(after) => (format!("WHERE site_id > {}", crate::db::placeholder(backend, 1)), vec![Value::from(after)]),
        None => (String::new(), Vec::new()),
    };
    let sql = format!(
        "WITH RECURSIVE s(site_id, n) AS ( \
           SELECT site_id, 1 FROM (SELECT site_id FROM event_outbox {first} ORDER BY site_id LIMIT 1) AS lowest \
           UNION ALL \
           SELECT (SELECT e.site_id FROM event_outbox e WHERE e.site_id > s.site_id ORDER BY e.site_id LIMIT 1), s.n + 1 \
           FROM s WHERE s.site_id IS NOT NULL AND s.n < {limit} \
         ) SELECT site_id FROM s WHERE site_id IS NOT NULL"
    );
    Statement::from_sql_and_values(backend, sql, values)
}

/// The oldest `per_site` events of each site, in one statement.
async fn oldest_of(
    db: &impl ConnectionTrait,
    sites: &[Uuid],
    per_site: usize,
) -> Result<Vec<event_outbox::Model>, DbErr> {
    let statement = oldest_of_query(db.get_database_backend(), sites, per_site);
    event_outbox::Entity::find().from_raw_sql(statement).all(db).await
}

/// The statement of [`oldest_of`]: one range of `ix_event_outbox_site_seq`
/// per site, in its order (public for the plan tests).
pub fn oldest_of_query(backend: DbBackend, sites: &[Uuid], per_site: usize) -> Statement {
    let sql = (1..=sites.len())
        .map(|n| {
            format!(
                "SELECT * FROM (SELECT seq, site_id, event, data, occurred_at FROM event_outbox \
                 WHERE site_id = {} ORDER BY seq LIMIT {per_site}) AS site_{n}",
                crate::db::placeholder(backend, n)
            )
        })
        .collect::<Vec<_>>()
        .join(" UNION ALL ");
    let values: Vec<Value> = sites.iter().map(|site| Value::from(*site)).collect();
    Statement::from_sql_and_values(backend, sql, values)
}

/// `sites` (all that have events, in id order) starting with the first after
/// `previous`, the site that led the previous pass, round again from the
/// lowest: each site leads a pass in turn. (With more sites than a pass
/// takes, the window itself moves on every pass.) The dispatcher's transaction always takes the first event
/// ([`fitting`]); with one site always first, a site whose every event is
/// wider than a transaction (more webhooks than its rows) would keep every
/// other site's events out of all of them while its backlog lasted.
fn led_after(mut sites: Vec<Uuid>, previous: Option<Uuid>) -> Vec<Uuid> {
    if let Some(previous) = previous {
        let start = sites.iter().position(|site| *site > previous).unwrap_or(0);
        sites.rotate_left(start);
    }
    sites
}

/// `events` ordered in turn across `sites`: each site's first, then each site's second, ...
fn in_turn(events: Vec<event_outbox::Model>, sites: &[Uuid]) -> Vec<event_outbox::Model> {
    let total = events.len();
    let mut by_site: HashMap<Uuid, std::collections::VecDeque<event_outbox::Model>> = HashMap::new();
    for event in events {
        by_site.entry(event.site_id).or_default().push_back(event);
    }
    for queue in by_site.values_mut() {
        queue.make_contiguous().sort_by_key(|e| e.seq);
    }
    let mut ordered = Vec::with_capacity(total);
    loop {
        let before = ordered.len();
        for site in sites {
            if let Some(event) = by_site.get_mut(site).and_then(std::collections::VecDeque::pop_front) {
                ordered.push(event);
            }
        }
        // A round that took nothing ends it, even if an event named a site
        // not in `sites` (the query cannot, but a loop must not spin on it).
        if ordered.len() == before {
            return ordered;
        }
    }
}

/// The events of `in_turn` order that fit in `budget` rows (`rows_of` each,
/// at least one row), the first always: a site whose next event does not fit
/// waits for the next transaction, and the sites after it still take theirs.
pub fn fitting(
    events: &[event_outbox::Model],
    rows_of: impl Fn(&event_outbox::Model) -> usize,
    budget: usize,
) -> Vec<event_outbox::Model> {
    let (mut taken, mut rows) = (Vec::new(), 0);
    let mut waiting: Vec<Uuid> = Vec::new();
    for event in events {
        if waiting.contains(&event.site_id) {
            continue; // its site's earlier event waits: so does this one
        }
        let needs = rows_of(event).max(1);
        if taken.is_empty() || rows + needs <= budget {
            rows += needs;
            taken.push(event.clone());
        } else {
            waiting.push(event.site_id);
        }
    }
    taken
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: i64, site_id: Uuid) -> event_outbox::Model {
        event_outbox::Model {
            seq,
            site_id,
            event: "blog.created".into(),
            data: serde_json::json!({}),
            occurred_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn a_sites_backlog_does_not_hold_another_sites_events() {
        let (noisy, quiet) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let mut events: Vec<_> = (1..=5).map(|seq| event(seq, noisy)).collect();
        events.push(event(9, quiet));
        events.push(event(8, quiet));
        let order: Vec<(Uuid, i64)> = in_turn(events, &[noisy, quiet]).iter().map(|e| (e.site_id, e.seq)).collect();
        assert_eq!(
            order,
            [(noisy, 1), (quiet, 8), (noisy, 2), (quiet, 9), (noisy, 3), (noisy, 4), (noisy, 5)],
            "in turn, each site's own in order"
        );
    }

    #[test]
    fn a_site_fanning_out_wide_does_not_hold_the_narrow_ones_to_its_pace() {
        let (wide, narrow) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let events =
            in_turn((1..=10).flat_map(|n| [event(n, wide), event(100 + n, narrow)]).collect(), &[wide, narrow]);
        let rows_of = |e: &event_outbox::Model| if e.site_id == wide { 20 } else { 1 };
        let taken = fitting(&events, rows_of, 100);
        let of = |site| taken.iter().filter(|e| e.site_id == site).map(|e| e.seq).collect::<Vec<_>>();
        assert_eq!(of(wide), [1, 2, 3, 4], "four of twenty rows fit beside the narrow site's");
        assert_eq!(of(narrow), (101..=110).collect::<Vec<_>>(), "all ten of one row each");
        let alone = fitting(&[event(1, wide)], |_| 500, 100);
        assert_eq!(alone.len(), 1, "an event wider than a transaction still goes, alone");
    }

    #[test]
    fn a_site_wider_than_a_transaction_leads_every_other_pass_not_every_one() {
        let (wide, narrow) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let events =
            |sites: &[Uuid]| in_turn((1..=5).flat_map(|n| [event(n, wide), event(100 + n, narrow)]).collect(), sites);
        let rows_of = |e: &event_outbox::Model| if e.site_id == wide { 20 } else { 1 };
        let first = led_after(vec![wide, narrow], None);
        let taken = fitting(&events(&first), rows_of, 10);
        assert_eq!(taken.iter().map(|e| e.seq).collect::<Vec<_>>(), [1], "the wide site's event, alone");
        let second = led_after(vec![wide, narrow], first.first().copied());
        assert_eq!(second, [narrow, wide]);
        let taken = fitting(&events(&second), rows_of, 10);
        assert_eq!(taken.iter().map(|e| e.seq).collect::<Vec<_>>(), (101..=105).collect::<Vec<_>>());
        assert_eq!(led_after(vec![wide, narrow], Some(narrow)), [wide, narrow], "round again from the lowest");
    }
}
