//! `memlens check [--repair] [--json]`: verifies the store and reports each problem
//! with what to do; `--repair` then rebuilds the store from its readable memories (see
//! [`memlens::store::check`] and [`memlens::store::repair`]). Exit 0 when the store is
//! clean (after the repair, when one ran and set nothing aside), 1 otherwise.

use super::{CommandError, CommandResult, must_exist, temp_beside};
use crate::cli::CheckArgs;
use memlens::store::check::{CheckReport, check};
use memlens::store::repair::{RepairOutcome, repair};
use memlens::words::counted;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs `memlens check` on the store at `path`, printing to `out`.
pub fn run(path: &Path, args: &CheckArgs, out: &mut dyn Write) -> CommandResult<()> {
    must_exist(path)?;
    let report = check(path, &temp_beside(path, "check"))?;
    let mut repaired = None;
    if args.repair && !report.is_clean() {
        let outcome = repair(
            path,
            &temp_beside(path, "repair-read"),
            &temp_beside(path, "repaired"),
            &old_store_path(path),
        )?;
        let after = check(path, &temp_beside(path, "check"))?;
        repaired = Some((outcome, after));
    }
    let io = |e| CommandError::io("stdout", e);
    if args.json {
        let value = json!({
            "store": path,
            "memories": report.memories,
            "set_aside": report.set_aside,
            "clean": report.is_clean(),
            "problems": report.problems,
            "repair": repaired.as_ref().map(|(outcome, after)| json!({
                "saved": outcome.saved,
                "set_aside": outcome.set_aside,
                "old_store": outcome.old_store,
                "after": after,
                "clean_after": after.is_clean(),
            })),
        });
        serde_json::to_writer_pretty(&mut *out, &value).map_err(|e| io(e.into()))?;
        writeln!(out).map_err(io)?;
    } else {
        out.write_all(text(&report, repaired.as_ref()).as_bytes())
            .map_err(io)?;
    }
    let remaining = match &repaired {
        Some((outcome, after)) => after.problems.len() + outcome.set_aside.len(),
        None => report.problems.len(),
    };
    if remaining == 0 {
        return Ok(());
    }
    let problems = match &repaired {
        Some((outcome, after)) if after.is_clean() => format!(
            "repaired; {} set aside as damaged",
            super::memories(outcome.set_aside.len())
        ),
        Some((_, after)) => counted(after.problems.len(), "problem remains", "problems remain"),
        None => counted(report.problems.len(), "problem found", "problems found"),
    };
    Err(CommandError::ProblemsFound {
        path: path.to_path_buf(),
        problems,
    })
}

/// Where a repair keeps the store as it was: `STORE.before-repair`, numbered when
/// that is taken.
fn old_store_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let at = |suffix: String| path.with_file_name(format!("{name}.before-repair{suffix}"));
    let mut candidate = at(String::new());
    let mut n = 1;
    while candidate.exists() {
        n += 1;
        candidate = at(format!("-{n}"));
    }
    candidate
}

/// The report as text.
fn text(report: &CheckReport, repaired: Option<&(RepairOutcome, CheckReport)>) -> String {
    let counted = match report.memories {
        Some(n) => super::memories(n as usize),
        None => "its memories could not be counted".to_string(),
    };
    let mut s = format!("{}: {counted}\n", report.store.display());
    list(&mut s, report);
    if let Some((outcome, after)) = repaired {
        s.push_str(&format!(
            "repaired: {} stored afresh with their ids, backlinks and indexes, in one transaction\n",
            super::memories(outcome.saved)
        ));
        s.push_str(&format!(
            "the store as it was is kept at {}\n",
            outcome.old_store.display()
        ));
        for m in &outcome.set_aside {
            s.push_str(&format!(
                "not saved: {}; its bytes are kept in the table `damaged` under {} (and in the old store)\n",
                memlens::text::inert(&m.reason),
                m.damaged_key
            ));
        }
        s.push_str("after the repair:\n");
        list(&mut s, after);
    }
    s
}

fn list(s: &mut String, report: &CheckReport) {
    if report.set_aside > 0 {
        s.push_str(&format!(
            "note: {} set aside by an earlier repair are kept in the table `damaged`\n",
            super::memories(report.set_aside as usize)
        ));
    }
    if report.is_clean() {
        s.push_str("clean: every check passed\n");
        return;
    }
    for p in &report.problems {
        let area = serde_json::to_value(p.area)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        s.push_str(&format!(
            "problem ({area}): {}\n  fix: {}\n",
            memlens::text::inert(&p.problem),
            p.fix
        ));
    }
    s.push_str(&format!(
        "{}\n",
        counted(report.problems.len(), "problem", "problems")
    ));
}
