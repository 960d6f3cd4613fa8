//! `rvmon check … --report FILE.html`: the run's report, for every engine that runs through
//! the one run loop. [`run`] is the hook: with a report asked for, it wraps the monitor in
//! [`rvmon_report::Reported`] (which records the inputs and, on their way to the sink, the
//! decisions) and writes the page after the run, also when the run stops on a bad input
//! (then the page shows what was decided before it). Without one it is [`run::run`], and
//! the run pays nothing. Standard output and the exit status are the same either way.

use std::io::Write;

use rvmon_core::event::Event;
use rvmon_core::{Error, Monitor, Sink};
use rvmon_report::{Companion, Meta, Recorded, Reported};
use rvmon_stl::ast::{Node, NodeId};
use rvmon_stl::{Formula, StlMonitor};

use crate::check::CheckArgs;
use crate::run::{self, RunOptions, RunStats, Source};

/// The subformulas of an STL formula whose robustness a report draws, at most.
pub const SUBFORMULAS: usize = 12;
/// The largest subformula (in nodes) the report draws.
pub const COMPANION_NODES: usize = 4096;

/// A report asked for: the file (created before the run, so that a path that cannot be
/// written fails first), what it says of the specification, and the companion monitors.
pub struct ReportPlan<In> {
    path: String,
    file: std::fs::File,
    meta: Meta,
    companions: Vec<Companion<In>>,
}

impl<In> ReportPlan<In> {
    /// The report `args` asks for (`--report`), if any, of the specification `text` in
    /// `language`; `inputs` names the values of an event (stream and signal specifications).
    pub fn new(
        args: &CheckArgs,
        language: &str,
        text: &str,
        inputs: Vec<String>,
    ) -> Result<Option<ReportPlan<In>>, Error> {
        let Some(path) = args.report.as_deref() else {
            return Ok(None);
        };
        if path == "-" {
            return Err(Error::msg(
                "--report needs a file name: standard output is the verdicts'",
            ));
        }
        // Creating the report truncates its file: never the trace's or the specification's.
        let same = |other: &str| match (std::fs::canonicalize(path), std::fs::canonicalize(other)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if let Some(input) = [Some(args.spec.as_str()), args.trace.as_deref()]
            .into_iter()
            .flatten()
            .find(|f| same(f))
        {
            return Err(Error::msg(format!(
                "--report {path}: that is the input {input}; the report would overwrite it"
            )));
        }
        let file = std::fs::File::create(path)
            .map_err(|e| Error::msg(format!("{path}: cannot write the report: {e}")))?;
        let meta = Meta {
            spec: args.spec.clone(),
            language: language.to_string(),
            text: text.to_string(),
            trace: args
                .trace
                .as_deref()
                .filter(|t| *t != "-")
                .unwrap_or("<stdin>")
                .to_string(),
            inputs,
            ..Meta::default()
        };
        Ok(Some(ReportPlan {
            path: path.to_string(),
            file,
            meta,
            companions: Vec::new(),
        }))
    }
}

impl ReportPlan<Event> {
    /// With the robustness of `formula`'s subformulas: a monitor of each (see
    /// [`subformulas`]), fed the same samples.
    pub fn with_subformulas(mut self, formula: &Formula) -> ReportPlan<Event> {
        let (chosen, all) = subformulas(formula);
        if all > chosen.len() {
            self.meta.notes.push(format!(
                "The formula has {all} distinct subformulas (besides signals and numbers); the \
                 report draws {} of them: the outermost first, comparisons and temporal \
                 operators before arithmetic.",
                chosen.len()
            ));
        }
        self.companions = chosen
            .into_iter()
            .map(|id| Companion {
                title: formula.text(id),
                monitor: Box::new(StlMonitor::new(formula.subformula(id))),
            })
            .collect();
        self
    }
}

/// The subformulas a report draws, at most [`SUBFORMULAS`], outermost first (comparisons
/// and operators over them before arithmetic; signals, numbers and the formula itself
/// left out, none over [`COMPANION_NODES`], and each text once), and how many distinct ones
/// there are (counted among the first few hundred of those).
pub fn subformulas(f: &Formula) -> (Vec<NodeId>, usize) {
    let mut order = Vec::new();
    let mut stack = vec![f.root];
    while let Some(id) = stack.pop() {
        order.push(id);
        let ops: Vec<NodeId> = f.nodes[id].operands().collect();
        stack.extend(ops.into_iter().rev());
    }
    let arithmetic = |id: &NodeId| {
        matches!(
            f.nodes[*id],
            Node::Arith(..) | Node::Fun(..) | Node::Pow(..)
        )
    };
    let leaf = |id: &NodeId| matches!(f.nodes[*id], Node::Signal(_) | Node::Const(_));
    // (Each drawn subformula runs its own monitor: one as large as the formula would double
    // the run's memory, twelve of them multiply it. So the large ones are not candidates.)
    let mut size = vec![1usize; f.nodes.len()];
    for (id, node) in f.nodes.iter().enumerate() {
        size[id] += node.operands().map(|c| size[c]).sum::<usize>();
    }
    let small = |id: &&NodeId| size[**id] <= COMPANION_NODES;
    let candidates = order
        .iter()
        .filter(|id| **id != f.root && !leaf(id) && !arithmetic(id))
        .chain(order.iter().filter(|id| arithmetic(id)))
        .filter(small);
    // Subformulas are told apart by their text, up to a size: a larger one is told apart by
    // its node (it is unlikely to be written twice) and its text is not built.
    let key = |id: NodeId| match size[id] {
        0..=256 => (0, rvmon_core::fingerprint(&f.text(id))),
        _ => (1, id as u64),
    };
    let (mut chosen, mut texts) = (Vec::new(), std::collections::HashSet::new());
    for &id in candidates.take(400) {
        if texts.insert(key(id)) && chosen.len() < SUBFORMULAS {
            chosen.push(id);
        }
    }
    (chosen, texts.len())
}

/// Runs `monitor` as [`run::run`] does; with `report`, writes the report after the run
/// (after a failed one too, and then returns the run's error).
pub fn run<S>(
    report: Option<ReportPlan<S::Item>>,
    monitor: &mut dyn Monitor<S::Item>,
    reader: &mut S,
    sink: &mut dyn Sink,
    options: RunOptions,
    err: &mut dyn Write,
) -> Result<RunStats, Error>
where
    S: Source + ?Sized,
    S::Item: Recorded,
{
    let Some(plan) = report else {
        return run::run(monitor, reader, sink, options, err);
    };
    let mut reported = Reported::new(monitor, plan.meta, plan.companions);
    let result = run::run(&mut reported, reader, sink, options, err);
    let mut report = reported.into_report();
    if let Err(e) = &result {
        report.stopped = Some(e.to_string());
    }
    let mut file = std::io::BufWriter::new(plan.file);
    let written = rvmon_report::write_html(&report, &mut file)
        .map_err(|e| Error::msg(format!("{}: cannot write the report: {e}", plan.path)));
    match (result, written) {
        (Ok(stats), Ok(())) => {
            writeln!(err, "rvmon: report written to {}", plan.path)?;
            Ok(stats)
        }
        (Ok(_), Err(e)) => Err(e),
        (Err(e), written) => {
            if written.is_ok() {
                writeln!(
                    err,
                    "rvmon: report of the decisions before the error written to {}",
                    plan.path
                )?;
            }
            Err(e)
        }
    }
}
