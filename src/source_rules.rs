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

/// `path:line: code` of every service line outside `exempt` files holding one of `needles`.
fn lines_naming(needles: &[&str], exempt: impl Fn(&Path) -> bool) -> Vec<String> {
    service_code()
        .into_iter()
        .filter(|(path, _)| !exempt(path))
        .flat_map(|(path, code)| {
            code.lines()
                .enumerate()
                .filter(|(_, line)| needles.iter().any(|needle| line.contains(needle)))
                .map(|(n, line)| format!("{}:{}: {}", path.display(), n + 1, line.trim()))
                .collect::<Vec<_>>()
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
    let offenders = lines_naming(&READS_OF_NOW, |path| path.ends_with("actors/src/clock.rs"));
    assert!(offenders.is_empty(), "read time through `state.clock` (plinth_actors::Clock):\n{}", offenders.join("\n"));
}

/// Role and key-permission ranks are compared in the permission table only
/// (`src/permissions.rs`); everywhere else asks `role.has(Capability::…)` or
/// `permission.has(KeyCapability::…)`.
#[test]
fn ranks_are_compared_only_in_the_permission_table() {
    let ordering = [" < ", " > ", " <= ", " >= ", ".max(", ".min(", ".cmp("];
    let offenders: Vec<String> = service_code()
        .into_iter()
        .filter(|(path, _)| !path.ends_with("src/permissions.rs"))
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

/// Written in halves, like [`READS_OF_NOW`].
const HTTP_CLIENT_BUILDERS: [&str; 3] =
    [concat!("Client::", "builder("), concat!("Client", "Builder"), concat!("reqwest::Client::", "new(")];

/// Outbound HTTP clients are built in `src/outbound/` only: a family that built
/// its own would skip the SSRF-guarded resolver, the redirect refusal and the
/// proxy rule that every call to a tenant-chosen destination must have.
#[test]
fn http_clients_are_built_only_in_outbound() {
    let offenders = lines_naming(&HTTP_CLIENT_BUILDERS, |path| path.components().any(|c| c.as_os_str() == "outbound"));
    assert!(offenders.is_empty(), "use crate::outbound (Outbound or operator_client):\n{}", offenders.join("\n"));
}

/// utoipa's internal traits (its `__dev` module) are read in one place, the route
/// table, and utoipa is pinned to the exact version they were read from.
#[test]
fn utoipa_internals_only_in_the_route_table() {
    let offenders = lines_naming(&[concat!("utoipa::", "__dev")], |path| path.ends_with("src/routes/mod.rs"));
    assert!(offenders.is_empty(), "only src/routes/mod.rs reads utoipa's internals:\n{}", offenders.join("\n"));
    let manifest = include_str!("../Cargo.toml");
    assert!(
        manifest.lines().any(|line| line.starts_with("utoipa = { version = \"=")),
        "utoipa must stay pinned to an exact version while src/routes/mod.rs reads its internals"
    );
}

/// Written in halves, like [`READS_OF_NOW`].
const RAW_TRANSACTIONS: [&str; 2] = [concat!(".begin", "()"), concat!(".begin_with", "_config(")];

/// Every transaction starts in `db` (`begin_write`): on SQLite writers take
/// their turn in one queue there and hold the write lock from BEGIN, and a raw
/// `begin()` beside it would wait in SQLite's busy handler instead.
#[test]
fn transactions_begin_only_in_db() {
    let offenders = lines_naming(&RAW_TRANSACTIONS, |path| path.ends_with("src/db/mod.rs"));
    assert!(offenders.is_empty(), "begin transactions with crate::db::begin_write:\n{}", offenders.join("\n"));
}

/// Written in halves, like [`READS_OF_NOW`].
const AUDITED_BEGINS: [&str; 1] = [concat!("begin_", "write(")];

/// An audited write goes through the one builder, `audit::write` (or its
/// one-row form `audit::Write`): it begins the transaction, runs the change
/// with its entries and commits, so no change holds a transaction of its own
/// that could skip a step. (`db::begin_unaudited` stays for writes that keep
/// no entry, each saying why.)
#[test]
fn audited_writes_go_through_the_builder() {
    let offenders =
        lines_naming(&AUDITED_BEGINS, |path| path.ends_with("src/db/mod.rs") || path.ends_with("src/audit.rs"));
    assert!(offenders.is_empty(), "write with audit::write or audit::Write:\n{}", offenders.join("\n"));
}

/// Written in halves, like [`READS_OF_NOW`].
const CACHE_DROPS: [&str; 5] = [
    concat!(".site_", "changed("),
    concat!(".everything_", "changed("),
    concat!("sites.", "invalidate"),
    concat!("public.", "clear()"),
    concat!("drop_", "here("),
];

/// Caches are dropped by the one write path only: a write transaction notes
/// what it touched (`db::WriteTxn`) and its commit hands that to
/// `state::write_caches`, which drops it here and tells the other instances.
/// A family that dropped caches itself could forget one, and nothing would
/// say so but a stale read (`tests/api/write_path.rs` performs every write).
#[test]
fn caches_are_dropped_only_by_the_write_path() {
    let offenders = lines_naming(&CACHE_DROPS, |path| {
        ["src/state/write_caches.rs", "src/state/responses.rs", "src/state/cluster.rs"]
            .iter()
            .any(|f| path.ends_with(f))
    });
    assert!(
        offenders.is_empty(),
        "drop caches through a WriteTxn (touch, or an audit entry):\n{}",
        offenders.join("\n")
    );
}

/// Who may do what is answered where the request arrives: handlers (files
/// declaring routes) and the authorizers they call (`auth/`, a family's
/// `access.rs`, `site_rows.rs`) turn the caller into a grant (`SiteGrant`,
/// `SitesGrant`, `Visibility`) or an identity through the permission table;
/// services take that value, never the caller. `http_cache.rs` keys cached
/// answers by the caller before any handler runs.
#[test]
fn services_take_grants_not_the_caller() {
    let may_name_the_caller = |path: &Path| {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let text = std::fs::read_to_string(path).unwrap_or_default();
        path.components().any(|c| c.as_os_str() == "auth")
            || text.contains(concat!("#[utoipa::", "path("))
            || matches!(name, "access.rs" | "site_rows.rs" | "http_cache.rs" | "source_rules.rs")
    };
    let named: Vec<String> = lines_naming(&["Principal"], may_name_the_caller)
        .into_iter()
        .filter(|line| !line.split(": ").nth(1).unwrap_or_default().starts_with("//"))
        .collect();
    assert!(named.is_empty(), "services name the caller instead of taking a grant:\n{}", named.join("\n"));
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

/// The module a file is: `src/sites/locales.rs` → `sites::locales`, `src/sites/mod.rs` → `sites`.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?.with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    Some(parts.join("::"))
}

/// The module paths a file names: `crate::a::b`, each entry of `crate::{a, b::c}`,
/// and `super::x` (resolved against the file's parent module).
fn named_paths(module: &str, code: &str) -> Vec<String> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    let mut found = Vec::new();
    for (prefix, base) in [
        ("crate::", String::new()),
        ("super::", module.rsplit_once("::").map(|(p, _)| p.to_string()).unwrap_or_default()),
    ] {
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            rest = &rest[at + prefix.len()..];
            let with_base = |path: &str| if base.is_empty() { path.to_string() } else { format!("{base}::{path}") };
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                found.extend(group[..end].split(',').map(str::trim).filter(|p| !p.is_empty()).map(with_base));
            } else {
                let end = rest.find(|c: char| !ident(c)).unwrap_or(rest.len());
                found.push(with_base(rest[..end].trim_end_matches(':')));
            }
        }
    }
    found
}

/// Every non-test file's code by module (`sites::locales`), `main` and `lib` aside.
fn code_by_module() -> std::collections::BTreeMap<String, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut code_of = std::collections::BTreeMap::new();
    for file in rust_files(&src) {
        let Some(module) = module_of(&src, &file) else { continue };
        if module == "main" || module == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        code_of.insert(module, text.split("\n#[cfg(test)]").next().unwrap_or_default().to_string());
    }
    code_of
}

/// Files form layers: no module reaches itself again through its imports (a
/// low layer importing a feature that imports it back). Paths resolve to the
/// longest module they name, so `crate::state::keys::KeyStore` is an edge to
/// `state::keys`, while a re-export through `state` is an edge to `state`.
#[test]
fn modules_import_each_other_without_cycles() {
    let code_of = code_by_module();
    let resolve = |path: &str| {
        let segments: Vec<&str> = path.split("::").collect();
        (1..=segments.len()).rev().map(|n| segments[..n].join("::")).find(|m| code_of.contains_key(m))
    };
    let graph = code_of
        .iter()
        .map(|(module, code)| {
            let deps = named_paths(module, code).iter().filter_map(|p| resolve(p)).filter(|d| d != module).collect();
            (module.clone(), deps)
        })
        .collect();
    assert_acyclic(&graph, "modules");
}

/// Top-level folders form layers too: `state`, `auth`, `permissions` and the
/// other shared modules sit below the families, and no family is imported by a
/// layer it depends on. Every file of a folder counts for the folder, so a
/// re-export in a `mod.rs` is an edge as much as a `use`.
#[test]
fn top_level_modules_form_layers() {
    use std::collections::{BTreeMap, BTreeSet};
    let code_of = code_by_module();
    let top = |module: &str| module.split("::").next().unwrap_or_default().to_string();
    let folders: BTreeSet<String> = code_of.keys().map(|m| top(m)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, code) in &code_of {
        if top(module) == "source_rules" {
            continue;
        }
        let deps = named_paths(module, code).into_iter().map(|p| top(&p)).filter(|d| folders.contains(d));
        graph.entry(top(module)).or_default().extend(deps.filter(|d| *d != top(module)));
    }
    assert_acyclic(&graph, "top-level modules");
}

/// The content engine sits below the families: no file of `src/content/`
/// names a module that serves routes of its own (a family). What the engine
/// needs from one reaches it through `content::hooks`, or lives in a module
/// below both (`trash_source`).
#[test]
fn the_content_engine_names_no_family() {
    let code_of = code_by_module();
    let top = |module: &str| module.split("::").next().unwrap_or_default().to_string();
    let families: std::collections::BTreeSet<String> = code_of
        .iter()
        .filter(|(_, code)| code.contains("fn routes(r: &mut"))
        .map(|(module, _)| top(module))
        .filter(|family| family != "content")
        .collect();
    assert!(families.len() > 20, "the families are found by their routes ({families:?})");
    let named: Vec<String> = code_of
        .iter()
        .filter(|(module, _)| top(module) == "content")
        .flat_map(|(module, code)| named_paths(module, code).into_iter().map(move |path| (module, path)))
        .filter(|(_, path)| families.contains(&top(path)))
        .map(|(module, path)| format!("{module} names crate::{path}"))
        .collect();
    assert!(named.is_empty(), "the content engine reaches into families:\n{}", named.join("\n"));
}

fn assert_acyclic(graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>, what: &str) {
    use std::collections::{BTreeMap, BTreeSet};
    // Depth-first search for a back edge; reports the first cycle found.
    fn visit<'a>(
        node: &'a String,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a String>,
        done: &mut BTreeSet<&'a String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| *n == node) {
            return Some(path[at..].iter().map(|n| n.to_string()).chain([node.clone()]).collect());
        }
        if done.contains(node) {
            return None;
        }
        path.push(node);
        for next in graph.get(node).into_iter().flatten() {
            if let Some((key, _)) = graph.get_key_value(next) {
                if let Some(cycle) = visit(key, graph, path, done) {
                    return Some(cycle);
                }
            }
        }
        path.pop();
        done.insert(node);
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(cycle) = visit(node, graph, &mut Vec::new(), &mut done) {
            panic!("{what} import each other in a circle: {}", cycle.join(" → "));
        }
    }
}
