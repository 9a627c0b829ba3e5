//! Rules about the source itself, checked by `cargo test` so that a new file
//! cannot quietly break them.

use std::path::{Path, PathBuf};

/// Every `.rs` file below `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return files };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The service's own code: `src/` and the actors crate, without test modules
/// (everything after a line that starts with `#[cfg(test)]`).
fn service_code() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [root.join("src"), root.join("actors/src")]
        .iter()
        .flat_map(|dir| rust_files(dir))
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let code = text.split("\n#[cfg(test)]").next().unwrap_or_default().to_string();
            Some((path, code))
        })
        .collect()
}

/// Written in two halves so that this file does not name them itself.
const READS_OF_NOW: [&str; 3] =
    [concat!("Utc::", "now()"), concat!("SystemTime::", "now()"), concat!("Local::", "now()")];

/// Time-dependent behaviour (scheduling, expiry, lockouts, retention) is only
/// testable when every "now" comes from the injectable clock.
#[test]
fn every_now_comes_from_the_injectable_clock() {
    let offenders: Vec<String> = service_code()
        .into_iter()
        .filter(|(path, _)| !path.ends_with("actors/src/clock.rs"))
        .flat_map(|(path, code)| {
            code.lines()
                .enumerate()
                .filter(|(_, line)| READS_OF_NOW.iter().any(|needle| line.contains(needle)))
                .map(|(n, line)| format!("{}:{}: {}", path.display(), n + 1, line.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(offenders.is_empty(), "read time through `state.clock` (plinth_actors::Clock):\n{}", offenders.join("\n"));
}

/// Role and key-permission ranks are compared in the permission table only
/// (`auth/roles.rs`); everywhere else asks `role.has(Capability::…)` or
/// `permission.has(KeyCapability::…)`.
#[test]
fn ranks_are_compared_only_in_the_permission_table() {
    let ordering = [" < ", " > ", " <= ", " >= ", ".max(", ".min(", ".cmp("];
    let offenders: Vec<String> = service_code()
        .into_iter()
        .filter(|(path, _)| !path.ends_with("src/auth/roles.rs"))
        .flat_map(|(path, code)| {
            code.lines()
                .enumerate()
                .filter(|(_, line)| {
                    (line.contains("Role::") || line.contains("KeyPermission::"))
                        && ordering.iter().any(|op| line.contains(op))
                })
                .map(|(n, line)| format!("{}:{}: {}", path.display(), n + 1, line.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(offenders.is_empty(), "compare ranks through the permission table:\n{}", offenders.join("\n"));
}

/// A file past about 600 lines is split by concept before it grows further.
#[test]
fn no_source_file_is_past_600_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let long: Vec<String> = ["src", "actors/src", "entities/src", "migrations/src", "tests", "benches"]
        .iter()
        .flat_map(|dir| rust_files(&root.join(dir)))
        .filter_map(|path| {
            let lines = std::fs::read_to_string(&path).ok()?.lines().count();
            (lines > 600).then(|| format!("{}: {lines} lines", path.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these by concept:\n{}", long.join("\n"));
}
