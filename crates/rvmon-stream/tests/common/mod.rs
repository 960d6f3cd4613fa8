//! What the stream tests share: a specification run over CSV rows, its triggers handed over.

use std::io::BufRead;

use rvmon_core::{Error, Payload};
use rvmon_stream::{run_events, Firing, Program};
use rvmon_trace::events::CsvEvents;

/// Runs `program` over the CSV rows of `reader` (`file` names it in errors), handing every
/// fired trigger to `on_fire` as soon as it is decided; returns the number of events.
pub fn run_csv<R: BufRead>(
    program: Program,
    reader: R,
    file: &str,
    mut on_fire: impl FnMut(&Firing) -> Result<(), Error>,
) -> Result<u64, Error> {
    let mut events = CsvEvents::new(reader, file, &program.inputs, None)?;
    run_events(program, &mut events, false, |d| match d.payload {
        Payload::Trigger { index, message } => on_fire(&Firing {
            event: d.tp,
            time: d.ts,
            trigger: index,
            message: message.into(),
        }),
        _ => Ok(()),
    })
}
