//! A mutating run killed (SIGKILL through `LOGCLEAN_FAILPOINT=N`) at every filesystem call it
//! makes, on fresh copies: `resume` must give the complete run's tree and `undo` the tree
//! before the run, at every N. What the `delete` and `free` tests share.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failed test

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

use super::scratch::{code, logclean, s, same, text, tree};

/// What [`crash_at_every_step`] saw.
pub struct Crashes {
    /// The mutating calls killed at.
    pub killed: usize,
    /// The log dir before the run.
    pub start: BTreeMap<String, Vec<u8>>,
    /// The log dir after the complete run.
    pub done: BTreeMap<String, Vec<u8>>,
}

/// Run `args(&case)` on a case from `make` to the end (exit 0, the tree changed), then on fresh
/// cases killed at each mutating call in turn until a run is not killed (at most `max`): on one
/// copy `after_kill(n, log_dir)` checks the killed dir, then `resume` must give the complete
/// run's tree (or say there is no run to resume, the dir untouched); on another `undo` must
/// give the tree before the run. `log_dir(&case)` is the dir the run changes.
pub fn crash_at_every_step<C>(
    make: impl Fn() -> C,
    log_dir: impl Fn(&C) -> PathBuf,
    args: impl Fn(&C) -> Vec<String>,
    after_kill: impl Fn(usize, &Path),
    max: usize,
) -> Crashes {
    let run = |a: &[String], env| logclean(&a.iter().map(String::as_str).collect::<Vec<_>>(), env);
    let reference = make();
    let start = tree(&log_dir(&reference));
    let o = run(&args(&reference), None);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let done = tree(&log_dir(&reference));
    assert_ne!(start, done, "the complete run changed nothing");
    let mut n = 1;
    loop {
        let c = make();
        let o = run(&args(&c), Some(("LOGCLEAN_FAILPOINT", n.to_string())));
        if o.status.signal().is_none() {
            same(
                &tree(&log_dir(&c)),
                &done,
                &format!("an unkilled run at {n}"),
            );
            break;
        }
        assert_eq!(o.status.signal(), Some(9));
        let u = make();
        run(&args(&u), Some(("LOGCLEAN_FAILPOINT", n.to_string())));
        after_kill(n, &log_dir(&c));
        let r = logclean(&["resume", s(&log_dir(&c))], None);
        if code(&r) == Some(0) {
            same(
                &tree(&log_dir(&c)),
                &done,
                &format!("resume after a kill at {n}"),
            );
        } else {
            assert!(text(&r).contains("no run to resume"), "{}", text(&r));
            same(
                &tree(&log_dir(&c)),
                &start,
                &format!("kill at {n} before the journal"),
            );
        }
        let r = logclean(&["undo", s(&log_dir(&u))], None);
        same(
            &tree(&log_dir(&u)),
            &start,
            &format!("undo after a kill at {n}: {}", text(&r)),
        );
        n += 1;
        assert!(n < max, "the run never finished");
    }
    Crashes {
        killed: n - 1,
        start,
        done,
    }
}
