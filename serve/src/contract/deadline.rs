//! The deadline of the tool call running on this thread, so that long loops stop when the
//! caller has already been answered `timeout`.
//!
//! [`crate::app::run_tool`] runs every call on a blocking thread and sets the deadline there
//! ([`scope`]); expensive loops (checking citation after citation, walking the graph,
//! assembling a data package, counting) call [`check`] between steps and return its error.
//! A thread-local keeps the deadline out of every tool's signature: tools that never loop
//! long need not know it exists. Outside a call (unit tests) there is no deadline.

use std::cell::Cell;
use std::time::Instant;

use crate::contract::answer::{ErrorCode, ToolError};

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Runs `f` with `deadline` as this thread's call deadline, and clears it after.
pub fn scope<R>(deadline: Instant, f: impl FnOnce() -> R) -> R {
    struct Reset(Option<Instant>);
    impl Drop for Reset {
        fn drop(&mut self) {
            DEADLINE.with(|d| d.set(self.0));
        }
    }
    let _reset = Reset(DEADLINE.with(|d| d.replace(Some(deadline))));
    f()
}

/// `Err(timeout)` once this thread's call deadline has passed; `Ok` otherwise (and always
/// outside a call).
pub fn check() -> Result<(), ToolError> {
    match DEADLINE.with(Cell::get) {
        Some(at) if Instant::now() >= at => Err(ToolError::new(
            ErrorCode::Timeout,
            "the call ran out of time and was stopped",
            "Narrow the request (smaller limit, shorter text, fewer ids) and retry.",
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_passed_deadline_stops_and_the_scope_restores_none() {
        assert!(check().is_ok(), "no deadline outside a call");
        scope(Instant::now() + Duration::from_secs(60), || assert!(check().is_ok()));
        let e = scope(Instant::now(), check).unwrap_err();
        assert_eq!(e.code, ErrorCode::Timeout);
        assert!(check().is_ok(), "cleared after the scope");
    }
}
