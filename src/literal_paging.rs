//! LIMIT and OFFSET written into a PostgreSQL statement as numbers.
//!
//! Why: PostgreSQL keeps one generic plan per prepared statement once its
//! cost is close to the plans made for each run's values (`plan_cache_mode =
//! auto`, see `db::connect`). A generic plan cannot see a `LIMIT $7`; the
//! planner then assumes a tenth of the rows are wanted (a page of 10 among
//! 100,000 posts is costed as 10,000), so the generic plan looks far dearer
//! than the run's own and is never kept: every request of a big site's list
//! paid 2 to 3 ms of planning for 0.3 ms of work. With the numbers in the
//! text, the generic plan is costed for the page it reads and is kept. A list
//! then has one statement per page size and offset; a page walked often
//! (page 1) is planned once per connection.
//!
//! SQLite plans when it prepares, whatever the values: statements for it are
//! left as they are.

use sea_orm::sea_query::{Value, Values};
use sea_orm::{ConnectionTrait, DbBackend, DbErr, EntityTrait, FromQueryResult, QueryTrait, Select, Statement};

/// `statement` with each `LIMIT $n` and `OFFSET $n` whose value is a
/// non-negative integer written as that number (PostgreSQL only), the other
/// parameters renumbered.
pub fn with_literal_paging(statement: Statement) -> Statement {
    let Statement { sql, values: Some(Values(params)), db_backend: db_backend @ DbBackend::Postgres } = statement
    else {
        return statement;
    };
    let mut literal: Vec<Option<u64>> = vec![None; params.len()];
    let mut kept = Vec::with_capacity(params.len());
    let mut renumbered = vec![0usize; params.len()];
    // First pass: which parameters follow LIMIT or OFFSET.
    for (position, keyword_ends) in placeholders(&sql) {
        let Some(index) = position.checked_sub(1) else { continue };
        let follows_paging = keyword_ends.is_some_and(|k| k == "LIMIT" || k == "OFFSET");
        if follows_paging {
            literal[index] = params.get(index).and_then(as_count);
        }
    }
    for (index, value) in params.into_iter().enumerate() {
        if literal[index].is_none() {
            kept.push(value);
            renumbered[index] = kept.len();
        }
    }
    let sql = rewrite_placeholders(&sql, |position| match literal.get(position - 1) {
        Some(Some(count)) => count.to_string(),
        Some(None) => format!("${}", renumbered[position - 1]),
        None => format!("${position}"),
    });
    Statement { sql, values: Some(Values(kept)), db_backend }
}

/// The rows of `select` (which holds its page's LIMIT and OFFSET), run with
/// its paging written in: what every paged family list reads its page with.
pub async fn all_with_literal_paging<E, C>(db: &C, select: Select<E>) -> Result<Vec<E::Model>, DbErr>
where
    E: EntityTrait,
    C: ConnectionTrait,
{
    let statement = with_literal_paging(select.build(db.get_database_backend()));
    E::Model::find_by_statement(statement).all(db).await
}

fn as_count(value: &Value) -> Option<u64> {
    match value {
        Value::BigUnsigned(Some(n)) => Some(*n),
        Value::Unsigned(Some(n)) => Some(u64::from(*n)),
        Value::BigInt(Some(n)) => u64::try_from(*n).ok(),
        Value::Int(Some(n)) => u64::try_from(*n).ok(),
        _ => None,
    }
}

/// Each `$n` outside string literals and quoted names, with the keyword
/// before it (`LIMIT`, `OFFSET`, …) when one is.
fn placeholders(sql: &str) -> Vec<(usize, Option<&str>)> {
    let mut found = Vec::new();
    scan(sql, |at, number, _| {
        let before = sql[..at].trim_end();
        let word_start = before.rfind(|c: char| !c.is_ascii_alphabetic()).map_or(0, |i| i + 1);
        let word = &before[word_start..];
        found.push((number, (!word.is_empty()).then_some(word)));
    });
    found
}

fn rewrite_placeholders(sql: &str, replace: impl Fn(usize) -> String) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut copied = 0;
    scan(sql, |at, number, end| {
        out.push_str(&sql[copied..at]);
        out.push_str(&replace(number));
        copied = end;
    });
    out.push_str(&sql[copied..]);
    out
}

/// Calls `found(start, number, end)` for each `$n` outside '…' and "…".
fn scan(sql: &str, mut found: impl FnMut(usize, usize, usize)) {
    let bytes = sql.as_bytes();
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            // A doubled quote inside a literal is one quote: closing then
            // opening again reads it right.
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if b == b'$' => {
                let digits = bytes[i + 1..].iter().take_while(|d| d.is_ascii_digit()).count();
                if digits > 0 {
                    let end = i + 1 + digits;
                    if let Ok(number) = sql[i + 1..end].parse() {
                        found(i, number, end);
                    }
                    i = end;
                    continue;
                }
            }
            None => {}
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pg(sql: &str, values: Vec<Value>) -> Statement {
        Statement::from_sql_and_values(DbBackend::Postgres, sql, values)
    }

    #[test]
    fn limits_and_offsets_become_numbers_and_the_rest_are_renumbered() {
        let site = Value::from(uuid::Uuid::nil());
        let statement = pg(
            r#"SELECT $1 AS "x" FROM t WHERE a = $2 AND b = '$3 LIMIT' ORDER BY a LIMIT $3 OFFSET $4) AND c = $5 LIMIT $6"#,
            vec![
                Value::from("x"),
                site.clone(),
                Value::from(10u64),
                Value::from(20u64),
                Value::from(7i32),
                Value::from(1i64),
            ],
        );
        let out = with_literal_paging(statement);
        assert_eq!(
            out.sql,
            r#"SELECT $1 AS "x" FROM t WHERE a = $2 AND b = '$3 LIMIT' ORDER BY a LIMIT 10 OFFSET 20) AND c = $3 LIMIT 1"#
        );
        assert_eq!(out.values.unwrap().0, vec![Value::from("x"), site, Value::from(7i32)]);
    }

    #[test]
    fn sqlite_statements_and_other_values_are_left_alone() {
        let sqlite = Statement::from_sql_and_values(DbBackend::Sqlite, "SELECT 1 LIMIT ?", vec![Value::from(5u64)]);
        assert_eq!(with_literal_paging(sqlite.clone()).sql, sqlite.sql);
        let text = pg("SELECT 1 LIMIT $1", vec![Value::from("5")]);
        assert_eq!(with_literal_paging(text).sql, "SELECT 1 LIMIT $1");
        let negative = pg("SELECT 1 OFFSET $1", vec![Value::from(-1i64)]);
        assert_eq!(with_literal_paging(negative).sql, "SELECT 1 OFFSET $1");
    }
}
