//! Results of submitted writes, carried back to JS through one callback,
//! `settle(id, error)`, per saver.
//!
//! napi-rs settles the promise of an async call through a threadsafe
//! function of its own (a uv handle, a queue and an env cleanup hook: about
//! a kilobyte), and under LangGraph's default durability tens of thousands
//! of writes are pending at once. One threadsafe function carries every
//! write's result instead, and the JS side keeps each call's resolvers.

use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::Arc;

use agentcore_checkpoint as core;
use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};

/// Called as `settle(id, error message)`; unref'd (weak) while no call is
/// pending.
type Outcome = (u32, Option<String>);
type Settle = ThreadsafeFunction<Outcome, (), FnArgs<Outcome>, Status, false, true>;

pub struct Completions {
    settle: Arc<Settle>,
    pending: Arc<Pending>,
}

/// The calls not yet settled, counted on the JS thread. While there are
/// any, the threadsafe function keeps the event loop alive, as each call's
/// own promise machinery would have. (Atomics only because napi classes
/// must be `Sync`: both sides of the count run on the JS thread.)
struct Pending {
    count: AtomicU32,
    settle: AtomicPtr<napi::sys::napi_threadsafe_function__>,
}

impl Completions {
    pub fn new(settle: Function<FnArgs<Outcome>, ()>) -> Result<Self> {
        let pending = Arc::new(Pending {
            count: AtomicU32::new(0),
            settle: AtomicPtr::new(std::ptr::null_mut()),
        });
        let on_js_thread = Arc::clone(&pending);
        let settle: Settle = settle
            .build_threadsafe_function::<Outcome>()
            .weak::<true>()
            .callee_handled::<false>()
            .build_callback(move |ctx| {
                on_js_thread.finish(&ctx.env)?;
                Ok(FnArgs::from(ctx.value))
            })?;
        pending.settle.store(settle.raw(), Ordering::Relaxed);
        Ok(Self {
            settle: Arc::new(settle),
            pending,
        })
    }

    /// Counts a call as pending (on the JS thread) and returns what settles
    /// it: `settle(id)` with the error's tagged message, if any.
    pub fn start(&self, env: &Env, id: u32) -> Result<core::Done> {
        self.pending.begin(env)?;
        let settle = Arc::clone(&self.settle);
        Ok(Box::new(move |result: core::Result<()>| {
            let error = result.err().map(|e| crate::saver::tagged(&e));
            // Fails only while the environment shuts down, when no one waits.
            let _ = settle.call((id, error), ThreadsafeFunctionCallMode::NonBlocking);
        }))
    }
}

impl Pending {
    fn begin(&self, env: &Env) -> Result<()> {
        if self.count.fetch_add(1, Ordering::Relaxed) == 0 {
            // SAFETY: on the JS thread, with the live threadsafe function
            // that `Completions` owns.
            let settle = self.settle.load(Ordering::Relaxed);
            check_status!(unsafe { napi::sys::napi_ref_threadsafe_function(env.raw(), settle) })?;
        }
        Ok(())
    }

    fn finish(&self, env: &Env) -> Result<()> {
        if self.count.fetch_sub(1, Ordering::Relaxed) == 1 {
            // SAFETY: as in `begin`; this runs inside its own callback.
            let settle = self.settle.load(Ordering::Relaxed);
            check_status!(unsafe { napi::sys::napi_unref_threadsafe_function(env.raw(), settle) })?;
        }
        Ok(())
    }
}
