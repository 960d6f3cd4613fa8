//! The monitor: the observed time points become cells ([`crate::cells`]), the propositional
//! engine the front door built for the rewritten formula monitors them, and its verdict at
//! the cell of each observed timestamp becomes this monitor's, with the guarantee the labels
//! give ([`crate::label`]).

use std::collections::VecDeque;

use rvmon_core::{
    Decision, Description, Error, EventRef, Interner, Kind, Monitor, Payload, Sink, Sym, TimePoint,
    Timestamp, Value,
};

use crate::label::Label;

/// How many cells are fed to the engine at once.
const CHUNK: usize = 1024;

/// The longest empty stretch, in cells, fed cell by cell (formulas with an unbounded past).
const MAX_GAP: u64 = 1 << 32;

/// What the rewritten formula's engine needs, and how to read its verdicts.
pub struct Plan {
    /// The engine of the cell formula ([`crate::cells::cell_formula`]).
    pub inner: Box<dyn Monitor>,
    /// Cells per time unit, halved (time scaled by it makes δ an integer).
    pub q: u64,
    /// How many cells back a verdict can read (`None`: all, for formulas whose past is
    /// unbounded): the cell trace starts that far before the first observed cell, and skips
    /// the middle of a longer empty stretch.
    pub lead: Option<u64>,
    /// How many cells ahead a verdict can read.
    pub ahead: u64,
    /// The label of the formula's negation: a violation holds for every (∀) or some (∃)
    /// timing, or neither.
    pub violation: Label,
    /// The proposition of the point cells, interned.
    pub even: Sym,
    /// `--explain`'s account of the rewriting.
    pub explain: String,
}

/// A formula monitored with imprecise timestamps.
pub struct ImpreciseMonitor {
    plan: Plan,
    /// The next cell to feed, once the first time point has fixed the start; the number of
    /// cells fed (the engine's time point numbers).
    next: Option<u64>,
    fed: u64,
    /// The cells after the last observed one that its verdict (or its neighbours') may read.
    needed_to: u64,
    /// The observed time point being gathered: its cell, number and timestamp, and the
    /// events, with their arguments (time points with the same timestamp are one instant).
    current: Option<(u64, u64, Timestamp)>,
    /// (Kept as one time point, whose flat argument storage is reused.)
    gathered: TimePoint,
    /// Observed cells whose verdict the engine has not given yet.
    pending: VecDeque<(u64, u64, Timestamp)>,
    cells: Vec<TimePoint>,
    decided: Decided,
}

/// The engine's verdicts (its timestamps are cells), with a first-order verdict's values.
#[derive(Default)]
struct Decided {
    verdicts: Vec<(i64, Kind, Vec<Value>)>,
    vars: Vec<String>,
}

impl Sink for Decided {
    fn emit(&mut self, d: &Decision<'_>, _: &Interner) -> Result<(), Error> {
        let values = match d.payload {
            Payload::Tuple { vars, values } => {
                if self.vars.len() != vars.len() {
                    self.vars = vars.to_vec();
                }
                values.to_vec()
            }
            _ => Vec::new(),
        };
        self.verdicts.push((d.ts, d.kind, values));
        Ok(())
    }
}

impl ImpreciseMonitor {
    pub fn new(plan: Plan) -> ImpreciseMonitor {
        ImpreciseMonitor {
            plan,
            next: None,
            fed: 0,
            needed_to: 0,
            current: None,
            gathered: TimePoint::default(),
            pending: VecDeque::new(),
            cells: Vec::new(),
            decided: Decided::default(),
        }
    }

    /// What `--explain` says about the rewriting.
    pub fn explain(&self) -> &str {
        &self.plan.explain
    }

    /// The cell of timestamp `ts`.
    fn cell(&self, ts: Timestamp) -> Result<u64, Error> {
        u64::try_from(ts)
            .ok()
            .and_then(|t| t.checked_mul(2 * self.plan.q))
            .filter(|c| *c < 1 << 62)
            .ok_or_else(|| {
                Error::msg(format!(
                    "timestamp {ts}: with --timestamp-error, timestamps are times from 0, \
                     not negative, and small enough to count in half units"
                ))
            })
    }

    /// Feeds the engine every cell up to the gathered time point's, that one with its events.
    fn flush(&mut self, interner: &mut Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        let Some((cell, tp, ts)) = self.current.take() else {
            return Ok(());
        };
        let mut next = match self.next {
            Some(n) => n,
            None => self.plan.lead.map_or(0, |l| cell.saturating_sub(l)),
        };
        if self.plan.lead.is_none() && cell - next > MAX_GAP {
            return Err(Error::msg(format!(
                "time point {tp}: a gap of {} time units, which a formula with an unbounded \
                 past operator is monitored through in half units: too long (at most {})",
                (cell - next) / (2 * self.plan.q),
                MAX_GAP / (2 * self.plan.q)
            )));
        }
        self.pending.push_back((cell, tp, ts));
        while next <= cell {
            // The middle of a long empty stretch: no verdict reads it (a bounded past reads
            // `lead` cells back, a future `ahead`), so the engine jumps over it.
            if let Some(lead) = self.plan.lead {
                let resume = cell.saturating_sub(lead);
                if next > self.needed_to && next < resume {
                    next = resume;
                }
            }
            let mut tp = TimePoint {
                index: self.fed,
                ts: next as Timestamp,
                ..TimePoint::default()
            };
            self.fed += 1;
            if next % 2 == 0 {
                tp.events.push(event(self.plan.even));
            }
            if next == cell {
                for e in &self.gathered.events {
                    tp.push_event(e.name, self.gathered.args_of(e));
                }
                self.gathered.clear();
            }
            self.cells.push(tp);
            next += 1;
            if self.cells.len() == CHUNK || next > cell {
                let cells = std::mem::take(&mut self.cells);
                let fed = self.plan.inner.feed(&cells, interner, &mut self.decided);
                self.cells = cells;
                self.cells.clear();
                self.translate(interner, sink)?;
                fed?;
                // (The engine is past the future horizon of the cells this far back: they are
                // decided, a violation or not. The first-order engine says nothing of the
                // others.)
                let decided_to = next.saturating_sub(self.plan.ahead + 1);
                while self.pending.front().is_some_and(|p| p.0 < decided_to) {
                    self.pending.pop_front();
                }
            }
        }
        self.next = Some(next);
        self.needed_to = cell.saturating_add(self.plan.ahead);
        Ok(())
    }

    /// The engine's verdicts at observed cells, as this monitor's (several at one cell for
    /// a first-order formula, one per violating assignment).
    fn translate(&mut self, interner: &Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        let vars = std::mem::take(&mut self.decided.vars);
        for (cell, kind, values) in self.decided.verdicts.drain(..) {
            while self.pending.front().is_some_and(|p| (p.0 as i64) < cell) {
                self.pending.pop_front();
            }
            let Some(&(observed, tp, ts)) = self.pending.front() else {
                continue;
            };
            if cell as u64 != observed {
                continue;
            }
            let timing = |every| Payload::Timing {
                every,
                vars: &vars,
                values: &values,
            };
            let (kind, payload) = match (kind, self.plan.violation) {
                (Kind::Violation, Label::All) => (Kind::Violation, timing(Some(true))),
                (Kind::Violation, Label::Some) => (Kind::Violation, timing(Some(false))),
                (Kind::Violation, Label::None) => (Kind::Inconclusive, timing(None)),
                (kind, _) => (kind, Payload::None),
            };
            sink.emit(
                &Decision {
                    tp,
                    ts,
                    kind,
                    payload,
                },
                interner,
            )?;
        }
        self.decided.vars = vars;
        Ok(())
    }
}

fn event(name: Sym) -> EventRef {
    EventRef {
        name,
        args_start: 0,
        args_len: 0,
    }
}

impl Monitor for ImpreciseMonitor {
    fn feed(
        &mut self,
        batch: &[TimePoint],
        interner: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        for tp in batch {
            let cell = self.cell(tp.ts)?;
            match self.current {
                Some((c, ..)) if c == cell => {}
                Some((c, ..)) if cell < c => {
                    return Err(Error::msg(format!(
                        "time point {}: timestamp {} goes back in time",
                        tp.index, tp.ts
                    )))
                }
                _ => {
                    self.flush(interner, sink)?;
                    self.current = Some((cell, tp.index, tp.ts));
                }
            }
            for e in &tp.events {
                self.gathered.push_event(e.name, tp.args_of(e));
            }
        }
        Ok(())
    }

    fn finish(&mut self, interner: &mut Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        self.flush(interner, sink)?;
        let finished = self.plan.inner.finish(interner, &mut self.decided);
        self.translate(interner, sink)?;
        self.pending.clear();
        finished
    }

    fn snapshot(&self) -> Result<Vec<u8>, Error> {
        Err(Error::msg(
            "a monitor with imprecise timestamps cannot save its state yet",
        ))
    }

    fn restore(&mut self, _: &[u8]) -> Result<(), Error> {
        Err(Error::msg(
            "a monitor with imprecise timestamps cannot restore a state yet",
        ))
    }

    fn describe(&self) -> Description {
        let inner = self.plan.inner.describe();
        Description {
            strategy: format!(
                "imprecise timestamps (rvmon-imprecise, paper 16): the formula rewritten (tf), \
                 its continuous semantics over half-unit cells monitored by {}; a violation \
                 holds for {}",
                inner.strategy,
                match self.plan.violation {
                    Label::All => "every timing within ±δ",
                    Label::Some => "some timing within ±δ (a possible violation)",
                    Label::None => "no timing that can be guaranteed (undetermined)",
                }
            ),
            memory: format!(
                "{}; in cells, two per time unit (×{} for δ's decimals)",
                inner.memory, self.plan.q
            ),
        }
    }
}
