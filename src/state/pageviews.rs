//! Pageviews waiting to be written, and today's visitor-hash salt: the
//! request path only appends to memory; `analytics::flush_pageviews` writes
//! them in batches (every second, when many wait, and on shutdown).

use std::sync::Mutex;

use plinth_entities::analytics_event;

#[derive(Default)]
pub struct PageviewIngest {
    buffer: Mutex<Vec<analytics_event::ActiveModel>>,
    salt: Mutex<Option<(String, [u8; 32])>>,
}

impl PageviewIngest {
    /// Appends one pageview; answers how many wait now.
    pub fn push(&self, row: analytics_event::ActiveModel) -> usize {
        let mut buffer = self.buffer.lock().unwrap_or_else(|e| e.into_inner());
        buffer.push(row);
        buffer.len()
    }

    /// How many wait to be written (for the metrics).
    pub fn waiting(&self) -> usize {
        self.buffer.lock().map_or(0, |buffer| buffer.len())
    }

    pub fn take(&self) -> Vec<analytics_event::ActiveModel> {
        std::mem::take(&mut *self.buffer.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Puts rows back at the front (a failed write is tried again).
    pub fn restore(&self, mut rows: Vec<analytics_event::ActiveModel>) {
        let mut buffer = self.buffer.lock().unwrap_or_else(|e| e.into_inner());
        rows.append(&mut buffer);
        *buffer = rows;
    }

    /// The salt cached for `day`, if it is the one cached.
    pub fn salt_for(&self, day: &str) -> Option<[u8; 32]> {
        let salt = self.salt.lock().unwrap_or_else(|e| e.into_inner());
        salt.as_ref().filter(|(d, _)| d == day).map(|(_, s)| *s)
    }

    pub fn set_salt(&self, day: String, salt: [u8; 32]) {
        *self.salt.lock().unwrap_or_else(|e| e.into_inner()) = Some((day, salt));
    }
}
