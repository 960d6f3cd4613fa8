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
mod compiled;
pub mod engine;
mod eval;
mod graph;
pub mod immediate;
pub mod input;
pub mod lexer;
pub mod ltl;
pub mod output;
pub mod parse;
pub mod value;

pub use analysis::{analyze, analyze_within, Program};
pub use engine::{Firing, Monitor, StreamEngine};
pub use immediate::ImmediateEngine;
pub use parse::parse_spec;

use std::io::BufRead;

use rvmon_core::Error;

/// Parses and analyses a specification.
pub fn compile(file: &str, text: &str) -> Result<Program, Error> {
    let spec = parse_spec(file, text)?;
    analyze(file, text, &spec)
}

/// What a run reports: a trigger that fired, or (when output values are asked for) a value.
pub enum Report<'a> {
    Trigger(&'a Firing),
    Value {
        decided: &'a engine::Decided,
        stream: &'a str,
    },
}

/// Runs `program` over the events of `source`, handing every fired trigger (and, with
/// `values`, every output value) to `on` as soon as it is decided; returns the number of
/// events. Within what one event decides, reports follow declaration order, as RTLola prints
/// them. On a bad event, what was decided before it has been handed over already.
pub fn run_events(
    program: Program,
    source: &mut dyn input::EventSource,
    values: bool,
    on: impl FnMut(Report) -> Result<(), Error>,
) -> Result<u64, Error> {
    let names: Vec<String> = program.outputs.iter().map(|o| o.name.clone()).collect();
    let is_trigger: Vec<bool> = program
        .outputs
        .iter()
        .map(|o| o.trigger.is_some())
        .collect();
    let trigger_output: Vec<usize> = (0..program.outputs.len())
        .filter(|&k| is_trigger[k])
        .collect();
    match ImmediateEngine::new(program) {
        Ok(engine) => drive(
            engine,
            source,
            values,
            &is_trigger,
            &trigger_output,
            &names,
            on,
        ),
        Err(program) => drive(
            StreamEngine::new(*program),
            source,
            values,
            &is_trigger,
            &trigger_output,
            &names,
            on,
        ),
    }
}

/// [`run_events`] on one engine.
fn drive(
    mut engine: impl Monitor,
    source: &mut dyn input::EventSource,
    values: bool,
    is_trigger: &[bool],
    trigger_output: &[usize],
    names: &[String],
    mut on: impl FnMut(Report) -> Result<(), Error>,
) -> Result<u64, Error> {
    if values {
        engine.record_outputs();
    }
    let mut ev = engine::Event::default();
    let mut fired = Vec::new();
    let mut n = 0;
    let mut emit = |engine: &mut dyn Monitor, fired: &mut Vec<Firing>| -> Result<(), Error> {
        if !values {
            for f in fired.drain(..) {
                on(Report::Trigger(&f))?;
            }
            return Ok(());
        }
        let decided: Vec<engine::Decided> = engine
            .take_decided()
            .into_iter()
            .filter(|d| !is_trigger[d.output])
            .collect();
        // (event, declaration index, which list, position in it)
        let mut order: Vec<(u64, usize, bool, usize)> = decided
            .iter()
            .enumerate()
            .map(|(i, d)| (d.event, d.output, false, i))
            .chain(
                fired
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (f.event, trigger_output[f.trigger], true, i)),
            )
            .collect();
        order.sort_unstable();
        for (_, _, trigger, i) in order {
            if trigger {
                on(Report::Trigger(&fired[i]))?;
            } else {
                let d = &decided[i];
                on(Report::Value {
                    decided: d,
                    stream: &names[d.output],
                })?;
            }
        }
        fired.clear();
        Ok(())
    };
    while source.next_event(&mut ev)? {
        n += 1;
        engine.step(&ev, &mut fired)?;
        emit(&mut engine, &mut fired)?;
    }
    engine.finish(&mut fired)?;
    emit(&mut engine, &mut fired)?;
    Ok(n)
}

/// [`run_events`] over CSV rows.
pub fn run_csv<R: BufRead>(
    program: Program,
    reader: R,
    file: &str,
    time_field: Option<&str>,
    mut on_fire: impl FnMut(&Firing) -> Result<(), Error>,
) -> Result<u64, Error> {
    let mut events = input::CsvEvents::new(reader, file, &program.inputs, time_field)?;
    run_events(program, &mut events, false, |r| match r {
        Report::Trigger(f) => on_fire(f),
        Report::Value { .. } => Ok(()),
    })
}
