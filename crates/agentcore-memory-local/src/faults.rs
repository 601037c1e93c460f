//! Fault injection for tests: added latency, throttling and server errors,
//! drawn from a seeded generator so a run can be repeated.

use std::sync::Mutex;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::options::Options;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    None,
    /// Answer 429 ThrottledException without doing anything.
    Throttle,
    /// Answer 500 ServiceException without doing anything.
    ErrorBefore,
    /// Do the operation, then answer 500 ServiceException: the response is
    /// lost, as when a connection drops after the service acted.
    ErrorAfter,
}

pub struct Faults {
    latency: Duration,
    throttle_rate: f64,
    error_rate: f64,
    rng: Mutex<SmallRng>,
}

impl Faults {
    pub fn new(options: &Options) -> Self {
        let rng = match options.seed {
            Some(seed) => SmallRng::seed_from_u64(seed),
            None => SmallRng::from_rng(&mut rand::rng()),
        };
        Self {
            latency: Duration::from_millis(options.latency_ms),
            throttle_rate: options.throttle_rate,
            error_rate: options.error_rate,
            rng: Mutex::new(rng),
        }
    }

    pub fn latency(&self) -> Duration {
        self.latency
    }

    /// The fault for the next request. Every call draws the same count of
    /// numbers, so a seeded server repeats its sequence for the same order of
    /// requests whatever the rates.
    pub fn draw(&self) -> Fault {
        let (throttle, error, after) = {
            let mut rng = self.rng.lock().expect("fault rng");
            (
                rng.random::<f64>(),
                rng.random::<f64>(),
                rng.random::<bool>(),
            )
        };
        if throttle < self.throttle_rate {
            Fault::Throttle
        } else if error < self.error_rate {
            if after {
                Fault::ErrorAfter
            } else {
                Fault::ErrorBefore
            }
        } else {
            Fault::None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn faults(throttle_rate: f64, error_rate: f64, seed: u64) -> Faults {
        Faults::new(&Options {
            throttle_rate,
            error_rate,
            seed: Some(seed),
            ..Options::default()
        })
    }

    #[test]
    fn rates_of_zero_and_one_are_exact() {
        let none = faults(0.0, 0.0, 1);
        assert!((0..1000).all(|_| none.draw() == Fault::None));
        let all = faults(1.0, 0.0, 1);
        assert!((0..1000).all(|_| all.draw() == Fault::Throttle));
        let errors = faults(0.0, 1.0, 1);
        let drawn: Vec<_> = (0..1000).map(|_| errors.draw()).collect();
        assert!(drawn
            .iter()
            .all(|f| matches!(f, Fault::ErrorBefore | Fault::ErrorAfter)));
        assert!(drawn.contains(&Fault::ErrorBefore) && drawn.contains(&Fault::ErrorAfter));
    }

    #[test]
    fn a_seed_repeats_its_sequence() {
        let a: Vec<_> = {
            let f = faults(0.3, 0.1, 7);
            (0..200).map(|_| f.draw()).collect()
        };
        let b: Vec<_> = {
            let f = faults(0.3, 0.1, 7);
            (0..200).map(|_| f.draw()).collect()
        };
        assert_eq!(a, b);
        let throttled = a.iter().filter(|f| **f == Fault::Throttle).count();
        assert!(
            (30..90).contains(&throttled),
            "{throttled} of 200 throttled at 30%"
        );
    }
}
