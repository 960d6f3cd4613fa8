//! `rvmon gen`: benchmark workloads, written as MonPoly logs on standard output.

use std::io::{BufRead, Write};

use clap::{Args, Subcommand};
use rvmon_core::Error;

#[derive(Args, Debug, Clone)]
pub struct GenArgs {
    #[command(subcommand)]
    pub workload: Workload,
}

#[derive(Subcommand, Debug, Clone)]
pub enum Workload {
    /// Random propositional time points: each proposition holds with probability `density`.
    Props {
        /// Number of time points.
        #[arg(long, default_value_t = 100_000)]
        length: u64,
        /// Proposition names, comma-separated.
        #[arg(long, default_value = "p,q,r,s")]
        props: String,
        #[arg(long, default_value_t = 0.3)]
        density: f64,
        /// Largest timestamp increment between time points (0 allows equal timestamps).
        #[arg(long, default_value_t = 1)]
        max_step: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// The log shape of paper 04 (Basin et al., Scalable Offline Monitoring, Tables 2–3): per
    /// computer, alive every 1–3.7 min (≈ 620 a day), net every 3–6.5 min (≈ 300 a day), ≈ 2.6 UPD starts a day (70 %
    /// connect, 9 % skip; 69 % of connects succeed within 30 min), ≈ 44 SSH logins a day (94 %
    /// log out, a few after more than a day), ≈ 0.3 AUTH invocations a day. Timestamps in
    /// seconds; events of all computers merged by timestamp, one time point per timestamp.
    Paper04 {
        #[arg(long, default_value_t = 100)]
        computers: u64,
        #[arg(long, default_value_t = 1)]
        days: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// A program's iterator events for the classic JavaMOP properties (`examples/rvm/`):
    /// `create(c,i)`, `hasnexttrue(i)`, `next(i)`, `update(c)`, `dispose(i)` (an iterator
    /// is garbage), one event per time point.
    /// Iterators are used correctly (`hasnexttrue` then `next`), and a collection that is
    /// updated gets fresh iterators, except at the chosen violation rate: then either `next`
    /// comes without `hasnexttrue` (HasNext) or right after an `update` of its collection
    /// (UnsafeIterator).
    Iterators {
        /// Collections (iterators are spread over them).
        #[arg(long, default_value_t = 100)]
        collections: u64,
        #[command(flatten)]
        program: ProgramShape,
    },
    /// A program's map events for paper 24's UnsafeMapIterator (`examples/rvm/maps.rvm`):
    /// `createColl(m,c)` (a key set or value collection of map m), `createIter(c,i)`,
    /// `useIter(i)`, `updateMap(m)`, `dispose(i)`, one event per time point. Each map has two
    /// collections; iterators are spread over the collections. A map that is updated gets
    /// fresh iterators over its collections (the old ones are disposed), except at the chosen
    /// violation rate: then an old iterator is used after the update.
    Maps {
        /// Maps.
        #[arg(long, default_value_t = 100)]
        maps: u64,
        #[command(flatten)]
        program: ProgramShape,
    },
    /// A program's synchronized collections and maps for JavaMOP's SafeSyncCollection and
    /// SafeSyncMap (`examples/rvm/sync.rvm`): `sync(c)`; `syncMap(m)` and `createSet(m,s)` (its
    /// key set); iterators over them created with the lock held (`syncCreateIter(c,i)`,
    /// `syncCreateSetIter(s,i)`), replaced over and over (`dispose(i)` for the old one); one
    /// event per time point. Accesses under the lock are not events (JavaMOP's conditions,
    /// resolved in the log). At the violation rate an iterator is created without the lock
    /// (`asyncCreateIter`, `asyncCreateSetIter`) or used without it (`accessIter(i)`,
    /// `accessSetIter(i)`). Even iterator slots are over collections, odd ones over key sets.
    Sync {
        /// Synchronized collections, and as many synchronized maps.
        #[arg(long, default_value_t = 100)]
        collections: u64,
        #[command(flatten)]
        objects: ObjectUse,
    },
    /// Concatenates time-shifted copies of a MonPoly log (copy k adds k × shift to every
    /// timestamp): how the timescales traces are scaled to 1 M time points.
    Repeat {
        log: String,
        #[arg(long, default_value_t = 10)]
        copies: u64,
        /// Timestamp shift per copy; by default the log's last timestamp + 1, so that copies
        /// never overlap (the timescales traces run slightly past 100,000).
        #[arg(long)]
        shift: Option<i64>,
        /// Rename every data value of copy k by appending `_k` (k ≥ 1), so that copies talk
        /// about distinct objects (users, files, locks): a 10 k DejaVu log becomes a 1 M one with
        /// the same shape.
        #[arg(long)]
        rename: bool,
    },
}

/// SplitMix64: a tiny, well-mixed generator, enough for reproducible workloads.
pub use rvmon_core::rng::SplitMix;

/// How a generated program uses its objects (`gen iterators`, `gen maps`, `gen sync`).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct ObjectUse {
    /// Live iterators at any time.
    #[arg(long, default_value_t = 1000)]
    iterators: u64,
    /// Approximate number of events.
    #[arg(long, default_value_t = 1_000_000)]
    events: u64,
    /// Share of uses that violate a property.
    #[arg(long, default_value_t = 0.0001)]
    violation_rate: f64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The shape of a program that updates its collections (`gen iterators`, `gen maps`).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct ProgramShape {
    #[command(flatten)]
    objects: ObjectUse,
    /// Share of uses that update the collection or map (correctly: its iterators are
    /// renewed).
    #[arg(long, default_value_t = 0.001)]
    update_rate: f64,
}

pub fn run(args: &GenArgs, out: &mut dyn Write) -> Result<i32, Error> {
    match &args.workload {
        Workload::Props {
            length,
            props,
            density,
            max_step,
            seed,
        } => {
            let names: Vec<&str> = props
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect();
            let mut rng = SplitMix(*seed);
            let mut ts: u64 = 0;
            for i in 0..*length {
                if i > 0 && *max_step > 0 {
                    ts += rng.next_u64() % (max_step + 1);
                }
                write!(out, "@{ts}")?;
                for n in &names {
                    if rng.unit() < *density {
                        write!(out, " {n}()")?;
                    }
                }
                writeln!(out)?;
            }
        }
        Workload::Paper04 {
            computers,
            days,
            seed,
        } => paper04(*computers, *days, *seed, out)?,
        Workload::Iterators {
            collections,
            program,
        } => iterators_log((*collections).max(1), program, out)?,
        Workload::Maps { maps, program } => maps_log((*maps).max(1), program, out)?,
        Workload::Sync {
            collections,
            objects,
        } => sync_log((*collections).max(1), objects, out)?,
        Workload::Repeat {
            log,
            copies,
            shift,
            rename,
        } => {
            let text = rvmon::read_file(log)?;
            let last_ts = text
                .lines()
                .filter_map(|l| l.trim_start().strip_prefix('@'))
                .filter_map(|r| {
                    r[..r.bytes().take_while(u8::is_ascii_digit).count()]
                        .parse::<i64>()
                        .ok()
                })
                .max()
                .unwrap_or(0);
            let shift = shift.unwrap_or(last_ts + 1);
            for k in 0..*copies {
                let add = shift * k as i64;
                for line in text.as_bytes().lines() {
                    let line = line?;
                    match line.trim_start().strip_prefix('@') {
                        Some(rest) => {
                            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                            let ts: i64 = rest[..digits].parse().map_err(|_| {
                                Error::msg(format!(
                                    "{log}: a line starts with `@` but no timestamp"
                                ))
                            })?;
                            let body = &rest[digits..];
                            if *rename && k > 0 {
                                writeln!(out, "@{}{}", ts + add, rename_values(body, k))?;
                            } else {
                                writeln!(out, "@{}{}", ts + add, body)?;
                            }
                        }
                        None => writeln!(out, "{line}")?,
                    }
                }
            }
        }
    }
    out.flush()?;
    Ok(0)
}

/// Appends `_k` to every value inside the tuples of a MonPoly log line.
fn rename_values(body: &str, k: u64) -> String {
    let mut out = String::with_capacity(body.len() + 8);
    let mut depth = 0;
    let mut in_value = false;
    for c in body.chars() {
        match c {
            '(' => {
                depth += 1;
                out.push(c);
            }
            ')' | ',' if depth > 0 => {
                if in_value {
                    out.push_str(&format!("_{k}"));
                    in_value = false;
                }
                if c == ')' {
                    depth -= 1;
                }
                out.push(c);
            }
            c if depth > 0 && !c.is_whitespace() => {
                in_value = true;
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// One computer's pending events and state in the paper-04 generator.
struct Computer {
    next_alive: u64,
    next_net: u64,
    next_upd: u64,
    next_ssh: u64,
    next_auth: u64,
    session: u64,
}

/// Writes the paper-04 workload day by day: memory is one day of events, whatever the size.
fn paper04(computers: u64, days: u64, seed: u64, out: &mut dyn Write) -> Result<(), Error> {
    const DAY: u64 = 86_400;
    let mut rng = SplitMix(seed);
    let exp = |rng: &mut SplitMix, mean: f64| (-(1.0 - rng.unit()).ln() * mean) as u64 + 1;
    let mut cs: Vec<Computer> = (0..computers)
        .map(|_| Computer {
            next_alive: rng.next_u64() % 220,
            next_net: rng.next_u64() % 390,
            next_upd: exp(&mut rng, DAY as f64 / 2.6),
            next_ssh: exp(&mut rng, DAY as f64 / 44.0),
            next_auth: exp(&mut rng, DAY as f64 / 0.3),
            session: 0,
        })
        .collect();
    // Events that were scheduled for later days (logouts, connects, successes).
    let mut later: Vec<(u64, String)> = Vec::new();
    for day in 0..days {
        let end = (day + 1) * DAY;
        let mut events: Vec<(u64, String)> = Vec::new();
        let (keep, today): (Vec<_>, Vec<_>) = later.drain(..).partition(|(t, _)| *t >= end);
        later = keep;
        events.extend(today);
        for (c, st) in cs.iter_mut().enumerate() {
            while st.next_alive < end {
                events.push((st.next_alive, format!("alive({c})")));
                st.next_alive += 60 + rng.next_u64() % 160;
            }
            while st.next_net < end {
                events.push((st.next_net, format!("net({c})")));
                st.next_net += 180 + rng.next_u64() % 210;
            }
            while st.next_upd < end {
                let t = st.next_upd;
                events.push((t, format!("upd_start({c})")));
                let r = rng.unit();
                if r < 0.70 {
                    let tc = t + 60 + rng.next_u64() % 540;
                    later.push((tc, format!("upd_connect({c})")));
                    if rng.unit() < 0.69 {
                        // Mostly within the 30 minutes P5 allows; a few late ones are violations.
                        let delay = if rng.unit() < 0.97 {
                            60 + rng.next_u64() % 1500
                        } else {
                            1900 + rng.next_u64() % 3600
                        };
                        later.push((tc + delay, format!("upd_success({c})")));
                    }
                } else if r < 0.79 {
                    later.push((t + 30 + rng.next_u64() % 300, format!("upd_skip({c})")));
                }
                st.next_upd += exp(&mut rng, DAY as f64 / 2.6);
            }
            while st.next_ssh < end {
                let t = st.next_ssh;
                st.session += 1;
                let s = c as u64 * 1_000_000 + st.session;
                events.push((t, format!("ssh_login({c},{s})")));
                if rng.unit() < 0.94 {
                    // Sessions last minutes to hours; about 1 % run past a day (P0/P3 violations).
                    let len = if rng.unit() < 0.99 {
                        60 + rng.next_u64() % 7200
                    } else {
                        DAY + rng.next_u64() % DAY
                    };
                    later.push((t + len, format!("ssh_logout({c},{s})")));
                }
                st.next_ssh += exp(&mut rng, DAY as f64 / 44.0);
            }
            while st.next_auth < end {
                let ms = 300 + rng.next_u64() % 6000;
                events.push((st.next_auth, format!("auth({c},{ms})")));
                st.next_auth += exp(&mut rng, DAY as f64 / 0.3);
            }
        }
        let (keep, today): (Vec<_>, Vec<_>) = later.drain(..).partition(|(t, _)| *t >= end);
        later = keep;
        events.extend(today);
        events.sort_by_key(|e| e.0);
        let mut i = 0;
        while i < events.len() {
            let t = events[i].0;
            write!(out, "@{t}")?;
            while i < events.len() && events[i].0 == t {
                write!(out, " {}", events[i].1)?;
                i += 1;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}

/// A MonPoly log with one event per time point.
struct EventLog<'a> {
    out: &'a mut dyn Write,
    tp: u64,
}

impl EventLog<'_> {
    fn emit(&mut self, ev: std::fmt::Arguments) -> Result<(), Error> {
        writeln!(self.out, "@{} {ev}", self.tp)?;
        self.tp += 1;
        Ok(())
    }

    /// An update of collection `c` renews every iterator over it.
    fn renew(&mut self, iters: &mut [(u64, u64)], c: u64, next_id: &mut u64) -> Result<(), Error> {
        for it in iters.iter_mut().filter(|it| it.1 == c) {
            self.emit(format_args!("dispose({})", it.0))?;
            it.0 = *next_id;
            *next_id += 1;
            self.emit(format_args!("create({c},{})", it.0))?;
        }
        Ok(())
    }
}

/// See [`Workload::Iterators`].
fn iterators_log(collections: u64, shape: &ProgramShape, out: &mut dyn Write) -> Result<(), Error> {
    let ProgramShape {
        objects:
            ObjectUse {
                iterators: n,
                events,
                violation_rate,
                seed,
            },
        update_rate,
    } = *shape;
    let mut rng = SplitMix(seed);
    let mut log = EventLog { out, tp: 0 };
    // (iterator id, its collection); ids are never reused.
    let mut iters: Vec<(u64, u64)> = (0..n).map(|i| (i, i % collections)).collect();
    let mut next_id = n;
    for &(i, c) in &iters {
        log.emit(format_args!("create({c},{i})"))?;
    }
    while log.tp < events && !iters.is_empty() {
        let k = (rng.next_u64() % iters.len() as u64) as usize;
        let (i, c) = iters[k];
        let r = rng.unit();
        if r < violation_rate / 2.0 {
            log.emit(format_args!("next({i})"))?;
        } else if r < violation_rate {
            log.emit(format_args!("update({c})"))?;
            log.emit(format_args!("hasnexttrue({i})"))?;
            log.emit(format_args!("next({i})"))?;
            log.renew(&mut iters, c, &mut next_id)?;
        } else if r < violation_rate + update_rate {
            log.emit(format_args!("update({c})"))?;
            log.renew(&mut iters, c, &mut next_id)?;
        } else {
            log.emit(format_args!("hasnexttrue({i})"))?;
            log.emit(format_args!("next({i})"))?;
        }
    }
    Ok(())
}

/// See [`Workload::Maps`]. Collection `c` belongs to map `c / 2`; iterator slot `k` is over
/// collection `k mod collections`, so a map's iterators are found without a scan.
fn maps_log(maps: u64, shape: &ProgramShape, out: &mut dyn Write) -> Result<(), Error> {
    let ProgramShape {
        objects:
            ObjectUse {
                iterators: n,
                events,
                violation_rate,
                seed,
            },
        update_rate,
    } = *shape;
    let mut rng = SplitMix(seed);
    let mut log = EventLog { out, tp: 0 };
    let collections = 2 * maps;
    for c in 0..collections {
        log.emit(format_args!("createColl({},{c})", c / 2))?;
    }
    // Slot k holds the current iterator over collection k mod collections.
    let mut iters: Vec<u64> = (0..n).collect();
    let mut next_id = n;
    for (k, &i) in iters.iter().enumerate() {
        log.emit(format_args!("createIter({},{i})", k as u64 % collections))?;
    }
    // Renews the iterators over map m's collections (the old ones are disposed).
    let renew = |log: &mut EventLog, iters: &mut [u64], m: u64, next_id: &mut u64| {
        for c in [2 * m, 2 * m + 1] {
            let mut k = c;
            while k < iters.len() as u64 {
                log.emit(format_args!("dispose({})", iters[k as usize]))?;
                iters[k as usize] = *next_id;
                *next_id += 1;
                log.emit(format_args!("createIter({c},{})", iters[k as usize]))?;
                k += collections;
            }
        }
        Ok::<(), Error>(())
    };
    while log.tp < events && !iters.is_empty() {
        let k = rng.next_u64() % iters.len() as u64;
        let (i, m) = (iters[k as usize], (k % collections) / 2);
        let r = rng.unit();
        if r < violation_rate {
            log.emit(format_args!("updateMap({m})"))?;
            log.emit(format_args!("useIter({i})"))?;
            renew(&mut log, &mut iters, m, &mut next_id)?;
        } else if r < violation_rate + update_rate {
            log.emit(format_args!("updateMap({m})"))?;
            renew(&mut log, &mut iters, m, &mut next_id)?;
        } else {
            log.emit(format_args!("useIter({i})"))?;
        }
    }
    Ok(())
}

/// See [`Workload::Sync`]. Map `m`'s key set is `collections + m`; iterator slot `k` is over
/// collection (or the key set of map) `(k / 2) mod collections`.
fn sync_log(collections: u64, objects: &ObjectUse, out: &mut dyn Write) -> Result<(), Error> {
    let ObjectUse {
        iterators: n,
        events,
        violation_rate,
        seed,
    } = *objects;
    let mut rng = SplitMix(seed);
    let mut log = EventLog { out, tp: 0 };
    for c in 0..collections {
        log.emit(format_args!("sync({c})"))?;
    }
    for m in 0..collections {
        log.emit(format_args!("syncMap({m})"))?;
        log.emit(format_args!("createSet({m},{})", collections + m))?;
    }
    // What slot k iterates, and the names of its events: (object, create with the lock,
    // create without it, access without it).
    let over = |k: u64| {
        let c = (k / 2) % collections;
        if k & 1 == 0 {
            (c, "syncCreateIter", "asyncCreateIter", "accessIter")
        } else {
            (
                collections + c,
                "syncCreateSetIter",
                "asyncCreateSetIter",
                "accessSetIter",
            )
        }
    };
    let mut iters: Vec<u64> = (0..n).collect();
    for (k, &i) in iters.iter().enumerate() {
        let (c, create, _, _) = over(k as u64);
        log.emit(format_args!("{create}({c},{i})"))?;
    }
    let mut next_id = n;
    while log.tp < events && !iters.is_empty() {
        let k = rng.next_u64() % iters.len() as u64;
        let (c, create, unlocked_create, unlocked_access) = over(k);
        let r = rng.unit();
        if r < violation_rate / 2.0 {
            log.emit(format_args!("{unlocked_access}({})", iters[k as usize]))?;
        }
        // The iterator is replaced (by one created without the lock, at the violation rate).
        log.emit(format_args!("dispose({})", iters[k as usize]))?;
        iters[k as usize] = next_id;
        next_id += 1;
        let how = if (violation_rate / 2.0..violation_rate).contains(&r) {
            unlocked_create
        } else {
            create
        };
        log.emit(format_args!("{how}({c},{})", iters[k as usize]))?;
    }
    Ok(())
}
