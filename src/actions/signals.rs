//! SIGINT during an apply: the signal is blocked for the whole run and polled between steps
//! through a non-blocking `signalfd`, so the current step always finishes and the journal stays
//! resumable (exit 130). Blocking (not a handler) needs no `unsafe`.

use std::sync::OnceLock;

use nix::sys::signal::{SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};

fn mask() -> SigSet {
    let mut set = SigSet::empty();
    set.add(Signal::SIGINT);
    set.add(Signal::SIGTERM);
    set
}

static FD: OnceLock<Option<std::sync::Mutex<SignalFd>>> = OnceLock::new();
static SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Block SIGINT and SIGTERM in the calling thread and the threads it starts afterwards, and
/// open the signalfd that [`interrupt_pending`] polls. Call first thing in a mutating command,
/// before any worker thread exists. When it fails the default action stays (the process ends at
/// once), which the journal covers too.
pub fn defer_interrupts() {
    FD.get_or_init(|| {
        mask().thread_block().ok()?;
        SignalFd::with_flags(&mask(), SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC)
            .ok()
            .map(std::sync::Mutex::new)
    });
}

/// Whether SIGINT or SIGTERM arrived (sticky once seen).
pub fn interrupt_pending() -> bool {
    use std::sync::atomic::Ordering;
    if SEEN.load(Ordering::SeqCst) {
        return true;
    }
    let got = FD
        .get()
        .and_then(Option::as_ref)
        .and_then(|m| m.lock().ok())
        .is_some_and(|fd| matches!(fd.read_signal(), Ok(Some(_))));
    if got {
        SEEN.store(true, Ordering::SeqCst);
    }
    got
}
