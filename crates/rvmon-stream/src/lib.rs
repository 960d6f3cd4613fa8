//! Stream runtime verification: specifications as stream equations (Lola, paper 06 of RV 2014)
//! in RTLola's syntax, extended with future offsets.
//!
//! The split follows RTLola's: [`parse`] builds the syntax tree, [`analysis`] resolves names,
//! checks types and pacing and builds the dependency graph (well-formedness, efficient
//! monitorability, latency and memory per stream), and [`engine`] only executes the result.
//! [`input`] reads events (one CSV row or JSON object each) and [`output`] formats triggers.

pub mod analysis;
pub mod ast;
pub mod bsrv;
pub mod engine;
pub mod input;
pub mod lexer;
pub mod ltl;
pub mod output;
pub mod parse;
pub mod value;

pub use analysis::{analyze, Program};
pub use engine::{Firing, StreamEngine};
pub use parse::parse_spec;

use std::io::BufRead;

use rvmon_core::Error;

/// Parses and analyses a specification.
pub fn compile(file: &str, text: &str) -> Result<Program, Error> {
    let spec = parse_spec(file, text)?;
    analyze(file, text, &spec)
}

/// Runs `program` over the events of `source`, handing every fired trigger to `on_fire` as
/// soon as it is decided; returns the number of events. On a bad event, the triggers decided
/// before it have been handed over already.
pub fn run_events(
    program: Program,
    source: &mut dyn input::EventSource,
    mut on_fire: impl FnMut(&Firing) -> Result<(), Error>,
) -> Result<u64, Error> {
    let mut engine = StreamEngine::new(program);
    let mut ev = engine::Event::default();
    let mut fired = Vec::new();
    let mut n = 0;
    while source.next_event(&mut ev)? {
        n += 1;
        engine.step(&ev, &mut fired)?;
        for f in fired.drain(..) {
            on_fire(&f)?;
        }
    }
    engine.finish(&mut fired)?;
    for f in fired.drain(..) {
        on_fire(&f)?;
    }
    Ok(n)
}

/// [`run_events`] over CSV rows.
pub fn run_csv<R: BufRead>(
    program: Program,
    reader: R,
    file: &str,
    time_field: Option<&str>,
    on_fire: impl FnMut(&Firing) -> Result<(), Error>,
) -> Result<u64, Error> {
    let mut events = input::CsvEvents::new(reader, file, &program.inputs, time_field)?;
    run_events(program, &mut events, on_fire)
}
