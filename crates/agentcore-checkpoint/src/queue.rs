//! Work waiting for a worker, held as data rather than as futures.
//!
//! Under LangGraph's default durability no superstep waits for its writes,
//! so a thousand graphs hand over tens of thousands of writes within a
//! second. A spawned task per write would hold a future, a task header and
//! the caller's promise machinery for each; here a waiting write is its
//! request and a completion callback in a `VecDeque`, and at most
//! `max_workers` tasks drain the queue in order.

use std::collections::VecDeque;
use std::sync::Mutex;

/// Slots an empty queue keeps for the next burst.
const KEPT_CAPACITY: usize = 1024;

pub(crate) struct WorkQueue<J> {
    state: Mutex<State<J>>,
    max_workers: usize,
}

struct State<J> {
    waiting: VecDeque<J>,
    workers: usize,
}

impl<J> WorkQueue<J> {
    pub fn new(max_workers: usize) -> Self {
        assert!(max_workers > 0, "a queue needs a worker");
        Self {
            state: Mutex::new(State {
                waiting: VecDeque::new(),
                workers: 0,
            }),
            max_workers,
        }
    }

    /// Queues a job. Returns true when the caller must start a worker,
    /// which then owns a place among `max_workers` until `next` says stop.
    #[must_use]
    pub fn push(&self, job: J) -> bool {
        let mut state = self.lock();
        state.waiting.push_back(job);
        let start = state.workers < self.max_workers;
        if start {
            state.workers += 1;
        }
        start
    }

    /// The oldest waiting job, for a worker; `None` means the queue is
    /// empty and the worker has given up its place, so must stop.
    pub fn next(&self) -> Option<J> {
        let mut state = self.lock();
        let job = state.waiting.pop_front();
        if job.is_none() {
            state.workers -= 1;
            // A burst's backlog leaves its capacity behind; give it back.
            if state.waiting.capacity() > KEPT_CAPACITY {
                state.waiting.shrink_to(KEPT_CAPACITY);
            }
        }
        job
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<J>> {
        // A job never runs under the lock, so a poisoned lock only means a
        // panic between two plain field updates: the state is still whole.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_start_up_to_the_limit_and_jobs_leave_in_order() {
        let queue = WorkQueue::new(2);
        let started: Vec<bool> = (0..5).map(|i| queue.push(i)).collect();
        assert_eq!(started, [true, true, false, false, false]);
        let drained: Vec<i32> = std::iter::from_fn(|| queue.next()).collect();
        assert_eq!(drained, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_worker_that_found_the_queue_empty_frees_its_place() {
        let queue = WorkQueue::new(1);
        assert!(queue.push("a"));
        assert!(!queue.push("b"), "the one worker is still running");
        assert_eq!(queue.next(), Some("a"));
        assert_eq!(queue.next(), Some("b"));
        assert_eq!(queue.next(), None);
        assert!(queue.push("c"), "the place is free again");
    }

    #[test]
    fn an_emptied_queue_gives_back_a_burst_s_capacity() {
        let queue = WorkQueue::new(1);
        for i in 0..100_000 {
            let _ = queue.push(i);
        }
        while queue.next().is_some() {}
        assert!(queue.lock().waiting.capacity() <= KEPT_CAPACITY);
    }
}
