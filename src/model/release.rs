//! Freeing large values off the caller's thread: a loaded model (every partition's segments), a
//! plan or a rendered document is freed beside the work that follows, not before it.

/// Drop `big` on a thread of its own; the process may end before it is done.
pub fn drop_aside<T: Send + 'static>(big: T) {
    // A thread that cannot be started drops its closure, and `big` with it, here.
    let _ = (std::thread::Builder::new().name("drop-aside".into())).spawn(move || drop(big));
}
