//! Stream runtime verification: specifications as stream equations (Lola, paper 06 of RV 2014)
//! in RTLola's syntax, extended with future offsets.
//!
//! The split follows RTLola's: [`parse`] builds the syntax tree, [`analysis`] resolves names,
//! checks types and pacing and builds the dependency graph (well-formedness, efficient
//! monitorability, latency and memory per stream), and [`engine`] only executes the result.
//! Events (one CSV row or JSON object each) are read by `rvmon-trace`'s `events` readers;
//! [`output`] formats times.

pub mod analysis;
pub mod ast;
pub mod bsrv;
mod compiled;
mod dynamic;
pub mod engine;
mod eval;
mod graph;
pub mod immediate;
mod instances;
pub mod lexer;
pub mod ltl;
mod monitor;
pub mod output;
pub mod parse;
mod schedule;
pub mod value;
mod window;

pub use analysis::{analyze, analyze_within, Program};
pub use engine::{Event, Firing, Step, StreamEngine};
pub use immediate::ImmediateEngine;
pub use monitor::{strategy, StreamMonitor};
pub use parse::parse_spec;

use rvmon_core::event::EventSource;
use rvmon_core::{Decision, Error, Monitor};

/// Parses and analyses a specification.
pub fn compile(file: &str, text: &str) -> Result<Program, Error> {
    let spec = parse_spec(file, text)?;
    analyze(file, text, &spec)
}

/// A [`rvmon_core::Sink`] that hands each decision to a closure.
struct Each<F>(F);

impl<F: FnMut(&Decision<'_>) -> Result<(), Error>> rvmon_core::Sink for Each<F> {
    fn emit(&mut self, d: &Decision<'_>, _: &rvmon_core::Interner) -> Result<(), Error> {
        (self.0)(d)
    }
}

/// Runs `program` over the events of `source` (a [`StreamMonitor`], one event at a time),
/// handing every fired trigger (and, with `values`, every output value) to `on` as soon as it
/// is decided; returns the number of events. On a bad event, what was decided before it has
/// been handed over already. (The front door's run loop does the same with batches, progress
/// and a sink that writes; this is for tests and embedding.)
pub fn run_events(
    program: Program,
    source: &mut dyn EventSource,
    values: bool,
    on: impl FnMut(&Decision<'_>) -> Result<(), Error>,
) -> Result<u64, Error> {
    let mut monitor = StreamMonitor::new(program, values);
    let (mut sink, mut interner) = (Each(on), rvmon_core::Interner::new());
    let mut ev = engine::Event::default();
    let mut n = 0;
    while source.next_event(&mut ev)? {
        n += 1;
        monitor.feed(std::slice::from_ref(&ev), &mut interner, &mut sink)?;
    }
    monitor.finish(&mut interner, &mut sink)?;
    Ok(n)
}
