//! The per-member token bucket (pod-migration.md §4): it paces Eviction, Delete and
//! SoftEviction calls, default 10/s with a burst of 1, and a caller waits for a token rather
//! than fail. It runs on tokio's real-time clock, not the shared virtual clock: it paces
//! requests to a real API server.
//!
//! The bucket holds saved time rather than a count of tokens: one token is one interval
//! (1/qps) of it, kept in whole nanoseconds. A token due at an instant is then there at that
//! instant; with floating-point tokens it can fall a hair short and cost an extra timer tick.

use std::future::Future;
use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

/// The bucket's pace: one token per `interval`, at most `capacity` (burst × interval) saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rate {
    interval: Duration,
    capacity: Duration,
}

impl Rate {
    /// `None`: unlimited, for a qps that is not a positive finite number (see [`TokenBucket::new`]).
    /// A burst of 0 is taken as 1: a bucket that can hold no token would never give one.
    fn of(qps: f64, burst: u32) -> Option<Rate> {
        if !(qps.is_finite() && qps > 0.0) {
            return None;
        }
        // A rate too slow for a Duration waits as good as forever rather than panicking.
        let interval = Duration::try_from_secs_f64(1.0 / qps).unwrap_or(Duration::MAX);
        let capacity = interval.checked_mul(burst.max(1)).unwrap_or(Duration::MAX);
        Some(Rate { interval, capacity })
    }
}

/// What the bucket holds, as of `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Level {
    saved: Duration,
    at: Instant,
}

/// The bucket at `now`, and how long until it holds a whole token (zero: it holds one now).
/// Time earned beyond the burst is lost; a clock read before `at` earns nothing.
fn refill(level: Level, now: Instant, rate: Rate) -> (Level, Duration) {
    let earned = now.saturating_duration_since(level.at);
    let saved = level.saved.saturating_add(earned).min(rate.capacity);
    let refilled = Level {
        saved,
        at: now.max(level.at),
    };
    (refilled, rate.interval.saturating_sub(saved))
}

/// `level` less one token.
fn spend(level: Level, rate: Rate) -> Level {
    Level {
        saved: level.saved.saturating_sub(rate.interval),
        ..level
    }
}

/// The token bucket of one member cluster; share it (e.g. in an `Arc`) between the tasks
/// that call the member.
#[derive(Debug)]
pub struct TokenBucket {
    /// `None`: unlimited.
    rate: Option<Rate>,
    /// tokio's mutex queues its waiters in arrival order, and the task holding it keeps it
    /// while it waits for its token: tokens go out first come, first served.
    level: Mutex<Level>,
}

impl TokenBucket {
    /// `qps` tokens per second, at most `burst` (at least 1) saved up; the bucket starts full.
    ///
    /// A `qps` that is zero, negative, NaN or infinite means unlimited: `take` never waits.
    /// `--pmj-evict-qps` only accepts a positive finite number, so only a caller that builds a
    /// bucket by hand gets there, and an unpaced member is the lesser harm next to one that
    /// hangs or panics.
    pub fn new(qps: f64, burst: u32) -> TokenBucket {
        TokenBucket::starting_at(qps, burst, Instant::now())
    }

    fn starting_at(qps: f64, burst: u32, now: Instant) -> TokenBucket {
        let rate = Rate::of(qps, burst);
        TokenBucket {
            rate,
            level: Mutex::new(Level {
                saved: rate.map_or(Duration::ZERO, |r| r.capacity),
                at: now,
            }),
        }
    }

    /// Waits until a token is available and takes it. Cancel-safe: a caller dropped while
    /// waiting takes no token, and the next in line moves up.
    pub async fn take(&self) {
        self.take_with(Instant::now, tokio::time::sleep).await;
    }

    /// [`take`](Self::take) on a given clock; returns when the token was taken (tests step a
    /// clock of their own through here).
    async fn take_with<F>(
        &self,
        now: impl Fn() -> Instant,
        sleep: impl Fn(Duration) -> F,
    ) -> Instant
    where
        F: Future<Output = ()>,
    {
        let Some(rate) = self.rate else {
            return now();
        };
        let mut level = self.level.lock().await;
        let (mut refilled, wait) = refill(*level, now(), rate);
        if !wait.is_zero() {
            // Sleeping never ends early, so the token is there when it does.
            sleep(wait).await;
            refilled = refill(refilled, now(), rate).0;
        }
        *level = spend(refilled, rate);
        refilled.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn rate_table() {
        let paced = |interval: Duration, capacity: Duration| Some(Rate { interval, capacity });
        let rows = [
            (
                "the default: 10/s, burst 1",
                10.0,
                1,
                paced(100 * MS, 100 * MS),
            ),
            (
                "burst 3 saves three intervals",
                10.0,
                3,
                paced(100 * MS, 300 * MS),
            ),
            (
                "burst 0 is clamped to 1",
                10.0,
                0,
                paced(100 * MS, 100 * MS),
            ),
            ("a fractional qps", 0.5, 1, paced(2000 * MS, 2000 * MS)),
            ("qps 0: unlimited", 0.0, 1, None),
            ("a negative qps: unlimited", -1.0, 1, None),
            ("NaN: unlimited", f64::NAN, 1, None),
            ("infinite: unlimited", f64::INFINITY, 1, None),
            (
                "a rate too slow for a Duration saturates instead of panicking",
                1e-300,
                2,
                paced(Duration::MAX, Duration::MAX),
            ),
        ];
        for (rule, qps, burst, want) in rows {
            assert_eq!(Rate::of(qps, burst), want, "rule: {rule}");
        }
    }

    #[test]
    fn refill_table() {
        let t0 = Instant::now() + Duration::from_secs(10);
        let burst_1 = Rate::of(10.0, 1).expect("paced");
        let burst_3 = Rate::of(10.0, 3).expect("paced");
        // (rule, rate, saved ms, ms since `at` (negative: the clock read earlier), saved ms
        // after, wait ms)
        let rows: [(&str, Rate, u32, i32, u32, u32); 9] = [
            ("a full bucket gives a token now", burst_1, 100, 0, 100, 0),
            (
                "burst cap: time beyond the burst is lost",
                burst_1,
                100,
                5_000,
                100,
                0,
            ),
            (
                "burst cap: burst 3 saves three tokens",
                burst_3,
                0,
                5_000,
                300,
                0,
            ),
            ("an empty bucket waits one interval", burst_1, 0, 0, 0, 100),
            (
                "a partial token waits only for the rest",
                burst_1,
                0,
                40,
                40,
                60,
            ),
            ("partial tokens add up", burst_1, 30, 40, 70, 30),
            (
                "a token is there the instant it is due",
                burst_1,
                0,
                100,
                100,
                0,
            ),
            (
                "partial tokens beyond a whole one: no wait",
                burst_3,
                150,
                0,
                150,
                0,
            ),
            (
                "a clock read before the last one earns nothing",
                burst_1,
                50,
                -10,
                50,
                50,
            ),
        ];
        for (rule, rate, saved, elapsed, want_saved, want_wait) in rows {
            let level = Level {
                saved: saved * MS,
                at: t0,
            };
            let offset = elapsed.unsigned_abs() * MS;
            let now = if elapsed < 0 {
                t0 - offset
            } else {
                t0 + offset
            };
            let (refilled, wait) = refill(level, now, rate);
            assert_eq!(
                (refilled.saved, wait),
                (want_saved * MS, want_wait * MS),
                "rule: {rule}"
            );
            assert_eq!(
                refilled.at,
                now.max(t0),
                "rule: {rule}: as of the later reading"
            );
        }
    }

    #[test]
    fn spend_table() {
        let t0 = Instant::now();
        let rate = Rate::of(10.0, 3).expect("paced");
        let rows = [
            ("one token is one interval", 250, 150),
            ("never below empty", 40, 0),
        ];
        for (rule, saved, want) in rows {
            let level = Level {
                saved: saved * MS,
                at: t0,
            };
            assert_eq!(spend(level, rate).saved, want * MS, "rule: {rule}");
        }
    }

    /// A clock that only moves when a waiter sleeps on it. tokio's own paused clock needs its
    /// `test-util` feature, which this crate does not enable.
    #[derive(Clone)]
    struct SteppedClock {
        start: Instant,
        elapsed: Arc<std::sync::Mutex<Duration>>,
    }

    impl SteppedClock {
        fn new() -> SteppedClock {
            SteppedClock {
                start: Instant::now(),
                elapsed: Arc::default(),
            }
        }

        fn now(&self) -> Instant {
            self.start + *self.elapsed.lock().expect("clock")
        }

        /// Steps the clock by `wait`, then lets other tasks run (and queue) before resuming.
        fn sleep(&self, wait: Duration) -> impl Future<Output = ()> + use<> {
            *self.elapsed.lock().expect("clock") += wait;
            tokio::task::yield_now()
        }

        async fn take(&self, bucket: &TokenBucket) -> Duration {
            let at = bucket.take_with(|| self.now(), |d| self.sleep(d)).await;
            at - self.start
        }
    }

    #[tokio::test]
    async fn one_plus_n_calls_at_10_per_second_burst_1_take_n_times_100ms() {
        let clock = SteppedClock::new();
        let bucket = TokenBucket::starting_at(10.0, 1, clock.start);
        let n = 5;
        let mut taken = Vec::new();
        for _ in 0..=n {
            taken.push(clock.take(&bucket).await);
        }
        let want: Vec<Duration> = (0..=n).map(|i| i * 100 * MS).collect();
        assert_eq!(taken, want, "the first at once, then one per 100 ms");
        assert_eq!(clock.now() - clock.start, n * 100 * MS);
    }

    #[tokio::test]
    async fn a_burst_is_taken_at_once_then_paced() {
        let clock = SteppedClock::new();
        let bucket = TokenBucket::starting_at(10.0, 3, clock.start);
        let mut taken = Vec::new();
        for _ in 0..5 {
            taken.push(clock.take(&bucket).await);
        }
        assert_eq!(taken, [0, 0, 0, 100, 200].map(|ms| ms * MS));
    }

    #[tokio::test]
    async fn many_tasks_at_once_are_served_one_token_each_in_arrival_order() {
        let clock = SteppedClock::new();
        let bucket = Arc::new(TokenBucket::starting_at(10.0, 1, clock.start));
        let tasks: Vec<_> = (0..6u32)
            .map(|i| {
                let (clock, bucket) = (clock.clone(), bucket.clone());
                tokio::spawn(async move { (clock.take(&bucket).await, i) })
            })
            .collect();
        let mut taken = Vec::new();
        for task in tasks {
            taken.push(task.await.expect("task"));
        }
        taken.sort();
        let want: Vec<(Duration, u32)> = (0..6u32).map(|i| (i * 100 * MS, i)).collect();
        assert_eq!(taken, want, "100 ms apart, first come first served");
    }

    #[tokio::test]
    async fn a_caller_that_gives_up_while_waiting_takes_no_token() {
        let clock = SteppedClock::new();
        let bucket = TokenBucket::starting_at(10.0, 1, clock.start);
        assert_eq!(clock.take(&bucket).await, Duration::ZERO);
        // Waits forever: dropped at its first sleep, before its token.
        let gave_up = bucket.take_with(|| clock.now(), |_| std::future::pending());
        let polled = tokio::time::timeout(Duration::ZERO, gave_up).await;
        assert!(polled.is_err(), "still waiting when dropped");
        *clock.elapsed.lock().expect("clock") += 100 * MS;
        assert_eq!(
            clock.take(&bucket).await,
            100 * MS,
            "the token it waited for is still there"
        );
    }

    #[tokio::test]
    async fn an_unlimited_bucket_never_waits() {
        for qps in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let bucket = TokenBucket::new(qps, 1);
            let now = Instant::now();
            for _ in 0..1_000 {
                let at = bucket
                    .take_with(|| now, |_| async { panic!("qps {qps}: waited") })
                    .await;
                assert_eq!(at, now);
            }
        }
    }

    /// The real clock: sleeps never end early, so three tokens at 200/s with burst 1 take at
    /// least two intervals (only that bound is asserted; wall time has no upper bound in CI).
    #[tokio::test]
    async fn take_waits_on_tokios_clock() {
        let bucket = TokenBucket::new(200.0, 1);
        let start = Instant::now();
        for _ in 0..3 {
            bucket.take().await;
        }
        assert!(start.elapsed() >= 10 * MS, "{:?}", start.elapsed());
    }
}
