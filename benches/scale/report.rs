//! The tables: per step, every row with both passes; then per backend the
//! figure at the first and at the largest step (or a site alone against one of
//! many) and their ratio, with its target. Printed, never asserted.

use crate::measure::{Measured, Row, ADMIN_LIST, BARE, DEEP_PAGE, ROWS};
use crate::seed::Growth;

/// 100000 → "100,000".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn writes(label: &str, growth: &Growth) {
    println!(
        "\nwrites/s {label}: {:.0}/s ({} writes in {:.1} s: POST /blogs, 1% DELETE, 16 in flight, \
         cache on; {} failed{})",
        growth.per_sec(),
        thousands(growth.writes),
        growth.secs,
        growth.failed,
        growth.first_error.as_ref().map(|e| format!(", e.g. {e}")).unwrap_or_default()
    );
}

fn cells(row: &Row) -> String {
    match &row.figures {
        Some(f) => format!("{:.0} | {:.2} | {:.2}", f.requests_per_sec, f.p50_ms, f.p99_ms),
        None => "n/a | | ".into(),
    }
}

/// One step's table.
pub fn step(title: &str, m: &Measured) {
    println!("\n### {title}\n");
    println!(
        "| row | cache off: req/s | p50 ms | p99 ms | cache on, 1 write/s beside: req/s | p50 ms | p99 ms | notes |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---|");
    for (i, name) in ROWS.iter().enumerate() {
        let (off, on) = (&m.off.rows[i], &m.on.rows[i]);
        let notes: Vec<String> = [("off", &off.note), ("on", &on.note)]
            .iter()
            .filter(|(_, note)| !note.is_empty())
            .map(|(pass, note)| format!("{pass}: {note}"))
            .collect();
        println!("| {name} | {} | {} | {} |", cells(off), cells(on), notes.join("; "));
    }
    if let Some(l) = &m.on.first_read {
        println!(
            "\nfirst read after a write (cache on; PUT /blogs/{{id}}, then the admin list page 1 timed; {} reads, \
             {} failed): p50 {:.2} ms, p99 {:.2} ms",
            l.samples, l.failed, l.p50_ms, l.p99_ms
        );
    }
    if let Some((ok, failed)) = m.on.writer {
        println!("writes beside the cached reads: {ok} ok, {failed} failed");
    }
}

/// One side of a comparison.
pub struct Column<'a> {
    pub label: String,
    pub measured: &'a Measured,
    pub writes_per_sec: Option<f64>,
}

fn verdict(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "MISSED"
    }
}

/// Per row: `first`, `last`, last/first and the target.
pub fn compare(title: &str, first: &Column, last: &Column, postgres: bool) {
    println!("\n### {title}\n");
    println!("| pass | row | {} | {} | ratio | target | |", first.label, last.label);
    println!("|---|---|---:|---:|---:|---|---|");
    if let (Some(a), Some(b)) = (first.writes_per_sec, last.writes_per_sec) {
        let ratio = b / a;
        println!(
            "| window of 1,000 writes | writes/s | {a:.0} | {b:.0} | {ratio:.2} | ≥ 0.8 | {} |",
            verdict(ratio >= 0.8)
        );
    }
    let admin_floor = if postgres { 4000.0 } else { 8000.0 };
    for (pass, cached) in [("cache off", false), ("cache on + writes", true)] {
        for (i, name) in ROWS.iter().enumerate() {
            let rate = |c: &Column| {
                let pass = if cached { &c.measured.on } else { &c.measured.off };
                pass.rows[i].figures.as_ref().map(|f| f.requests_per_sec)
            };
            let (Some(a), Some(b)) = (rate(first), rate(last)) else {
                println!("| {pass} | {name} | n/a | n/a | | ≥ 0.8 | n/a |");
                continue;
            };
            let ratio = b / a;
            // The deep page is held to an absolute figure only: its offset
            // grows with the site, so a ratio to page 5 of a 100-post site says little.
            let (target, met) = match i {
                BARE => ("baseline".to_string(), ""),
                DEEP_PAGE => ("≥ 500 req/s".to_string(), verdict(a.min(b) >= 500.0)),
                ADMIN_LIST if !cached => (
                    format!("≥ 0.8, ≥ {} req/s", thousands(admin_floor as u64)),
                    verdict(ratio >= 0.8 && a.min(b) >= admin_floor),
                ),
                _ => ("≥ 0.8".to_string(), verdict(ratio >= 0.8)),
            };
            println!("| {pass} | {name} | {a:.0} | {b:.0} | {ratio:.2} | {target} | {met} |");
        }
    }
    let p99 = |c: &Column| c.measured.on.first_read.as_ref().map(|l| l.p99_ms);
    if let (Some(a), Some(b)) = (p99(first), p99(last)) {
        let ratio = b / a;
        println!(
            "| cache on + writes | first read after a write, p99 ms | {a:.2} | {b:.2} | {ratio:.2} | ≤ 1.25 (latency) | {} |",
            verdict(ratio <= 1.25)
        );
    }
}

/// Memory per idle site from the server's RSS.
pub fn memory(sites: u64, secs: f64, before_kib: u64, after_kib: u64, restarted_kib: u64) {
    let mib = |kib: u64| kib as f64 / 1024.0;
    let per_site = |kib: u64| (kib as f64 - before_kib as f64) / sites.max(1) as f64;
    println!(
        "\n{} sites imported in {secs:.1} s ({:.1}/s). Server RSS: {:.1} MiB before (fresh start, one site), \
         {:.1} MiB after the imports = {:.1} KiB per idle site; {:.1} MiB after a restart = {:.1} KiB per idle site",
        thousands(sites),
        sites as f64 / secs.max(1e-9),
        mib(before_kib),
        mib(after_kib),
        per_site(after_kib),
        mib(restarted_kib),
        per_site(restarted_kib)
    );
}
