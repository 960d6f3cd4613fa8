//! The front door's cascade: a specification in, the cheapest engine that monitors it
//! correctly out, with the reason each cheaper one was skipped.
//!
//! In the style of regex-automata's meta strategy: the strategies are tried cheapest first,
//! and each either takes the specification or refuses it with a reason, handing it back
//! untouched to the next. `--explain` prints exactly what the cascade recorded.
//!
//! | order | strategy | takes |
//! |---|---|---|
//! | 1 | propositional MTL (rvmon-mtl) | formulas without variables or predicate arguments |
//! | 2 | sliced first-order (rvmon-timely) | first-order formulas, `--workers`/`--processes` > 1, a variable or period to slice by |
//! | 3 | first-order MFOTL (rvmon-fo) | first-order formulas (in MonPoly's monitorable fragment) |
//! | — | stream equations (rvmon-stream) | `.lola` specifications |
//! | — | parametric properties (rvmon-param) | `.rvm` specifications |
//! | — | signal temporal logic (rvmon-stl) | `.stl` formulas |
//! | — | MLTL observers (rvmon-r2u2) | R2U2's `.mltl` and C2PO's `.c2po` specifications |
//! | — | ModelPlex monitor conditions (rvmon-modelplex) | `.modelplex` files |
//!
//! A new engine is one crate implementing [`rvmon_core::Monitor`], plus one entry here.

use std::fmt;
use std::path::Path;

use rvmon_core::{Error, Interner, MemoryLimit, Monitor};
use rvmon_fo::{FoMonitor, Reading, Relevance};
use rvmon_logic::monpoly::{candidate_forms_within, rewrite_work};
use rvmon_logic::order::order_conjuncts;
use rvmon_logic::pushdown::push_comparisons;
use rvmon_logic::{
    analyze, check_arities, free_vars, parse_formula_with, Analysis, Formula, FormulaKind,
    ParseOptions,
};
use rvmon_mtl::{Engine, MtlMonitor, Program};
use rvmon_slice::empty_points_removable;
use rvmon_stl::{DenseFormula, DenseMonitor, StlMonitor};
use rvmon_stream::StreamMonitor;
use rvmon_trace::Signature;

/// The language of a specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// A temporal formula in MonPoly's syntax (`.mtl`, `.mfotl`, and any unknown
    /// extension), or Spot's LTL syntax (`.ltl` that does not parse as MonPoly's).
    Formula,
    /// Stream equations in RTLola's syntax (`.lola`).
    Lola,
    /// Parametric properties (`.rvm`, JavaMOP style).
    Rvm,
    /// A signal temporal logic formula in rtamt's syntax (`.stl`).
    Stl,
    /// Mission-time LTL formulas for R2U2: r2u2_cli's `.mltl`, or C2PO's `.c2po`.
    R2u2,
    /// ModelPlex monitor conditions over a prior and a posterior state (`.modelplex`).
    Modelplex,
}

impl Lang {
    /// The language `--lang` names, or else the file's extension says (`None`: the extension
    /// or name, for the formula parser's own choices such as `.ltl`).
    pub fn of(path: &str, given: Option<&str>) -> (Lang, Option<String>) {
        let name = given.map(str::to_string).or_else(|| {
            Path::new(path)
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_string)
        });
        let lang = match name.as_deref() {
            Some("lola" | "rtlola") => Lang::Lola,
            Some("rvm") => Lang::Rvm,
            Some("stl") => Lang::Stl,
            Some("mltl" | "c2po") => Lang::R2u2,
            Some("modelplex") => Lang::Modelplex,
            _ => Lang::Formula,
        };
        (lang, name)
    }
}

/// The strategies of the cascade.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// rvmon-mtl: propositional formulas (past-only, eager, or three-valued LTL3).
    Propositional,
    /// rvmon-timely: a first-order formula in slices, on several workers or processes.
    Sliced,
    /// rvmon-fo: first-order formulas, on one thread.
    FirstOrder,
    /// rvmon-stream: stream equations.
    Stream,
    /// rvmon-param: parametric properties.
    Parametric,
    /// rvmon-stl: signal temporal logic robustness.
    Signal,
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Strategy::Propositional => "propositional MTL (rvmon-mtl)",
            Strategy::Sliced => "sliced first-order (rvmon-timely)",
            Strategy::FirstOrder => "first-order MFOTL (rvmon-fo)",
            Strategy::Stream => "stream equations (rvmon-stream)",
            Strategy::Parametric => "parametric properties (rvmon-param)",
            Strategy::Signal => "signal temporal logic (rvmon-stl)",
        })
    }
}

/// A strategy the cascade passed over, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The strategy skipped.
    pub strategy: Strategy,
    /// Why it did not take the specification.
    pub why: String,
}

/// A formula specification, analysed: what the strategies decide on.
pub struct FormulaSpec {
    /// The file (or name) it came from, for error positions.
    pub name: String,
    /// Its text.
    pub text: String,
    /// The formula parsed.
    pub formula: Formula,
    /// Its temporal class, horizons, and where it is first-order.
    pub analysis: Analysis,
    /// The signature that types its predicates, if given.
    pub sig: Option<Signature>,
}

impl FormulaSpec {
    /// Parses and analyses `text` (from `name`; `lang` the language name or extension that
    /// chooses the syntax).
    pub fn parse(name: &str, text: String, lang: Option<&str>) -> Result<FormulaSpec, Error> {
        let formula = parse_formula_with(name, &text, ParseOptions::for_check(lang))?;
        let analysis = analyze(name, &text, &formula)?;
        Ok(FormulaSpec {
            name: name.to_string(),
            text,
            formula,
            analysis,
            sig: None,
        })
    }

    /// Types the predicates by `sig`, checking their arities.
    pub fn with_signature(mut self, sig: Option<Signature>) -> Result<FormulaSpec, Error> {
        if let Some(sig) = &sig {
            let arity = |p: &str| sig.get(p).map(|d| d.args.len());
            check_arities(&self.name, &self.text, &self.formula, &arity)?;
        }
        self.sig = sig;
        Ok(self)
    }

    /// The formula's free variables (the columns of a first-order violation).
    pub fn free_vars(&self) -> Vec<String> {
        free_vars(&self.formula)
    }
}

/// What the cascade built for a formula: the strategy, the ones skipped and why, and the
/// monitor.
pub struct FormulaPlan {
    /// The strategy that took the formula.
    pub chosen: Strategy,
    /// The cheaper ones that did not, and why.
    pub skipped: Vec<Skipped>,
    /// The monitor it built.
    pub monitor: Box<dyn Monitor>,
    detail: Detail,
}

/// What `--explain` says beyond the monitor's own description.
enum Detail {
    Propositional {
        operators: usize,
        propositions: String,
    },
    /// The form the engine monitors (its satisfying assignments are the violations), and its
    /// plan's operators.
    FirstOrder {
        analyzed: Formula,
        operators: String,
    },
}

impl FormulaPlan {
    /// `--explain`'s text: the formula, the strategy and why (the cascade's record), the
    /// temporal class and horizons, and the monitor's memory.
    pub fn explain(&self, spec: &FormulaSpec) -> String {
        let d = self.monitor.describe();
        let mut s = format!("formula: {}\nengine: {}\n", spec.formula, d.strategy);
        match &self.detail {
            Detail::Propositional { operators, .. } => s.push_str(&format!(
                "  why: the formula has no variables or predicate arguments; {operators} operators\n"
            )),
            Detail::FirstOrder { analyzed, .. } => {
                // The propositional engine's refusal is why this one runs.
                for k in &self.skipped {
                    match k.strategy {
                        Strategy::Propositional => s.push_str(&format!("  why: {}\n", k.why)),
                        _ => s.push_str(&format!("  skipped {}: {}\n", k.strategy, k.why)),
                    }
                }
                s.push_str(&format!("  violations are the assignments of: {analyzed}\n"));
            }
        }
        s.push_str(&class_and_horizons(&spec.analysis));
        s.push_str(&format!("memory: {}\n", d.memory));
        match &self.detail {
            Detail::Propositional { propositions, .. } => {
                s.push_str(&format!("propositions: {propositions}\n"))
            }
            Detail::FirstOrder { operators, .. } => {
                s.push_str(&format!(
                    "free variables: ({})\n",
                    spec.free_vars().join(",")
                ));
                s.push_str("plan (operator -> its variables):\n");
                s.push_str(operators);
            }
        }
        s
    }
}

/// The cascade for a formula: the propositional engine if it takes the formula, else the
/// first-order engine. `interner` is the one the trace's values will be in; `offline` lets
/// the first-order monitor leave out time points that cannot matter.
pub fn formula_monitor(
    spec: &FormulaSpec,
    interner: &mut Interner,
    offline: bool,
) -> Result<FormulaPlan, Error> {
    let mut skipped = Vec::new();
    match propositional(spec, interner)? {
        Ok(plan) => return Ok(plan),
        Err(why) => skipped.push(Skipped {
            strategy: Strategy::Propositional,
            why,
        }),
    }
    first_order(spec, interner, offline, skipped)
}

/// Strategy 1: the propositional engine, for a formula without variables or predicate
/// arguments. `Ok(Err(why))` refuses it.
fn propositional(
    spec: &FormulaSpec,
    interner: &mut Interner,
) -> Result<Result<FormulaPlan, String>, Error> {
    if let Some((_, why)) = &spec.analysis.first_order_at {
        return Ok(Err(why.clone()));
    }
    let program = Program::compile(&spec.formula, interner, &spec.name, &spec.text)?;
    let detail = Detail::Propositional {
        operators: program.ops.len(),
        propositions: program.prop_names.join(", "),
    };
    Ok(Ok(FormulaPlan {
        chosen: Strategy::Propositional,
        skipped: Vec::new(),
        monitor: Box::new(MtlMonitor::new(Engine::three_valued(program))),
        detail,
    }))
}

/// Strategy 3: the first-order engine, on the form [`choose_form`] picks.
fn first_order(
    spec: &FormulaSpec,
    interner: &mut Interner,
    offline: bool,
    skipped: Vec<Skipped>,
) -> Result<FormulaPlan, Error> {
    let sig = first_order_signature(spec)?;
    let (analyzed, plan) = choose_form(spec, sig, interner)?;
    // PERF: MonPoly's empty-time-point filter. A time point without an event of the
    // formula's predicates is left out when that provably changes no violation (the argument
    // is the data slicer's, `empty_points_removable`): no work at all for it, in any operator.
    // Paper 04's P3 reads 52 % of the time points of its log, P5 74 %. Not online: a time
    // point left out does not advance the engine's clock, so a verdict waiting for a window
    // to close would wait for the next relevant event.
    let relevance = (offline && empty_points_removable(&analyzed).is_ok())
        .then(|| Relevance::of(&rvmon_fo::expand_lets(&analyzed), interner));
    let operators = plan.describe(interner);
    let monitor = FoMonitor::new(plan, spec.free_vars(), Reading::Violations, relevance);
    Ok(FormulaPlan {
        chosen: Strategy::FirstOrder,
        skipped,
        monitor: Box::new(monitor),
        detail: Detail::FirstOrder {
            analyzed,
            operators,
        },
    })
}

/// The signature a first-order formula needs (to type its predicates).
pub fn first_order_signature(spec: &FormulaSpec) -> Result<&Signature, Error> {
    spec.sig.as_ref().ok_or_else(|| {
        Error::msg(format!(
            "{}: a first-order formula needs a signature (--sig FILE) to type its predicates",
            spec.name
        ))
    })
}

/// The form of the formula the first-order engine monitors, and its plan: the violations of
/// `f` are the satisfying assignments of `NOT f`, analysed as MonPoly analyses `-negate`
/// (normalised, rewritten into its monitorable fragment). The first candidate form the
/// engine can compile, its conjuncts ordered for the engine (`order_conjuncts`,
/// `push_comparisons`) or else as they are; otherwise the first one's error. `interner` is
/// the one the trace's values will be in.
pub fn choose_form(
    spec: &FormulaSpec,
    sig: &Signature,
    interner: &mut Interner,
) -> Result<(Formula, rvmon_fo::Plan), Error> {
    let f = &spec.formula;
    let negated = Formula::new(FormulaKind::Not(Box::new(f.clone())), f.span);
    let vars = free_vars(f);
    let mut first_error = None;
    // MonPoly's rewriting copies operands into every subformula it propagates them to; a form
    // whose rewriting would take more than `rewrite_work` is left out, with the reason.
    let (forms, too_large) = candidate_forms_within(&negated, rewrite_work(&negated));
    for form in forms {
        // Ordered with its `LET`s expanded, so that a defined predicate's future operators
        // count (the compiler expands them the same way); kept as written (`LET`s and all, for
        // `--explain`) when ordering moves nothing.
        let expanded = rvmon_fo::expand_lets(&form);
        // And with comparisons pushed into the temporal operators that bind their variables
        // (`push_comparisons`: the states keep only the tuples the comparisons keep).
        let ordered = order_conjuncts(&expanded);
        let pushed = push_comparisons(&ordered);
        // An error names a subformula as the user wrote it, so it is the unordered form's.
        let mut tries = Vec::new();
        for candidate in [pushed, ordered] {
            if candidate != expanded && !tries.iter().any(|(t, _)| *t == candidate) {
                tries.push((candidate, false));
            }
        }
        tries.push((form, true));
        for (candidate, as_written) in tries {
            match rvmon_fo::compile(&candidate, &vars, sig, interner, &spec.name, &spec.text) {
                Ok(plan) => return Ok((candidate, plan)),
                Err(e) if as_written => {
                    first_error.get_or_insert(e);
                }
                Err(_) => {}
            }
        }
    }
    let e = first_error.unwrap_or_else(|| Error::msg(format!("{}: no form to monitor", spec.name)));
    Err(match too_large {
        Some(t) => Error {
            message: format!("{}; {t}", e.message),
            ..e
        },
        None => e,
    })
}

/// `--explain`'s lines for the formula's temporal class and how far a verdict looks back and
/// ahead (the same for every engine).
fn class_and_horizons(analysis: &Analysis) -> String {
    let fmt_h = |h: Option<u64>| h.map_or("unbounded".to_string(), |h| h.to_string());
    format!(
        "checked: at every time point (no ALWAYS is needed around the formula; one there asks \
         that it hold from each time point on)\nclass: {}\nhorizons: past {}, future {} time units{}\n",
        analysis.temporal,
        fmt_h(analysis.past_horizon),
        fmt_h(analysis.future_horizon),
        if analysis.next_depth > 0 {
            format!(" (+{} NEXT steps)", analysis.next_depth)
        } else {
            String::new()
        }
    )
}

/// The monitor for a specification in any language the front door builds monitors for, with
/// the strategy that took it: `name` (its file, for error positions), its `text`, its `lang`
/// (with `lang_name`, the extension or `--lang`, which picks a formula's syntax), the
/// signature that types a first-order formula, and the interner the trace's values will be in.
/// Stream specifications are refused with the reason: they are fed events, not time points
/// ([`stream_monitor`]).
pub fn build(
    name: &str,
    text: String,
    (lang, lang_name): (Lang, Option<&str>),
    sig: Option<Signature>,
    interner: &mut Interner,
    offline: bool,
) -> Result<(Strategy, Box<dyn Monitor>), Error> {
    match lang {
        Lang::Formula => {
            let spec = FormulaSpec::parse(name, text, lang_name)?.with_signature(sig)?;
            let plan = formula_monitor(&spec, interner, offline)?;
            Ok((plan.chosen, plan.monitor))
        }
        Lang::Rvm => {
            let props = rvmon_param::spec::parse_rvm(name, &text)?;
            let monitor = rvmon_param::PropertiesMonitor::new(props, interner);
            Ok((Strategy::Parametric, Box::new(monitor)))
        }
        Lang::Lola | Lang::Stl | Lang::R2u2 | Lang::Modelplex => Err(Error::msg(format!(
            "{name}: a stream or signal specification is fed events (a typed value per input), \
             not time points: build its monitor with rvmon::cascade::stream_monitor or \
             rvmon::cascade::stl_monitor"
        ))),
    }
}

/// The monitor of an STL formula (`.stl`, rtamt's syntax), fed events whose inputs are the
/// formula's signals ([`StlMonitor::inputs`]); `name` its file, for error positions.
pub fn stl_monitor(name: &str, text: &str) -> Result<StlMonitor, Error> {
    stl_monitor_sampled(name, text, rvmon_stl::parse::PERIOD_NS)
}

/// [`stl_monitor`], the formula's bounds (in seconds, or in their units) over the sampling
/// period `period_ns` instead of rtamt's default of 1 s (rtamt's `set_sampling_period`).
pub fn stl_monitor_sampled(name: &str, text: &str, period_ns: u128) -> Result<StlMonitor, Error> {
    let clock = rvmon_stl::parse::Clock::Samples(period_ns.max(1));
    Ok(StlMonitor::new(rvmon_stl::parse::parse_in(
        name, text, clock,
    )?))
}

/// The dense-time monitor of an STL formula (`--dense`): windows in seconds, exact for
/// piecewise-constant signals, offline ([`DenseMonitor`]).
pub fn stl_dense_monitor(name: &str, text: &str) -> Result<DenseMonitor, Error> {
    Ok(DenseMonitor::new(DenseFormula::parse(name, text)?))
}

/// The monitor of a stream specification (`.lola`, RTLola's syntax), fed events (the
/// [`rvmon_stream::input`] readers give them): `name` its file, for error positions, `text`
/// its text, `memory` what its offsets may keep; with `values`, every output value is a
/// decision besides the triggers. (`rvmon check` also runs a Boolean specification that is
/// not well-formed, offline in two passes: that is not a monitor, and is refused here.)
pub fn stream_monitor(
    name: &str,
    text: &str,
    memory: MemoryLimit,
    values: bool,
) -> Result<StreamMonitor, Error> {
    let spec = rvmon_stream::parse_spec(name, text)?;
    let program = rvmon_stream::analyze_within(name, text, &spec, memory)?;
    Ok(StreamMonitor::new(program, values))
}

/// A monitor of a specification in any language the front door reads, by what it is fed.
pub enum AnyMonitor {
    /// Temporal formulas and parametric properties: time points of events with data.
    Points(Box<dyn Monitor>),
    /// Stream specifications and STL formulas: events holding a value per input.
    Events {
        /// The monitor.
        monitor: Box<dyn Monitor<rvmon_core::event::Event>>,
        /// The inputs, with their types: an event's values, in this order.
        inputs: Vec<(String, rvmon_core::event::ValType)>,
    },
}

/// The monitor of `text` (named `name`, in the language `lang` names or else its extension),
/// typed by `sig` if first-order, its strings in `interner`; an STL formula's bounds over the
/// sampling period `period_ns` (see [`stl_monitor_sampled`]; `None`: rtamt's default, 1 s).
/// With the strategy, in a line.
/// For the online uses (the Python module, the service): built as for a live input.
pub fn any_monitor(
    name: &str,
    text: &str,
    lang: Option<&str>,
    sig: Option<Signature>,
    interner: &mut Interner,
    period_ns: Option<u128>,
) -> Result<(String, AnyMonitor), Error> {
    use rvmon_core::event::Event;
    let (which, lang_name) = Lang::of(name, lang);
    Ok(match which {
        Lang::Formula | Lang::Rvm => {
            let lang = (which, lang_name.as_deref());
            let (chosen, m) = build(name, text.to_string(), lang, sig, interner, false)?;
            (chosen.to_string(), AnyMonitor::Points(m))
        }
        Lang::Lola => {
            let m = stream_monitor(name, text, MemoryLimit::DEFAULT, false)?;
            let inputs = m.inputs().to_vec();
            let strategy = Monitor::<Event>::describe(&m).strategy;
            let monitor = Box::new(m);
            (strategy, AnyMonitor::Events { monitor, inputs })
        }
        Lang::Stl => {
            let period = period_ns.unwrap_or(rvmon_stl::parse::PERIOD_NS);
            let m = stl_monitor_sampled(name, text, period)?;
            let inputs = m.inputs();
            let strategy = Monitor::<Event>::describe(&m).strategy;
            let monitor = Box::new(m);
            (strategy, AnyMonitor::Events { monitor, inputs })
        }
        Lang::R2u2 => {
            let m = r2u2_monitor(name, text, lang_name.as_deref())?;
            let inputs = m.inputs();
            let strategy = Monitor::<Event>::describe(&m).strategy;
            let monitor = Box::new(m);
            (strategy, AnyMonitor::Events { monitor, inputs })
        }
        Lang::Modelplex => {
            let m = modelplex_monitor(name, text, None)?;
            let inputs = m.inputs();
            let strategy = Monitor::<Event>::describe(&m).strategy;
            let monitor = Box::new(m);
            (strategy, AnyMonitor::Events { monitor, inputs })
        }
    })
}

/// A formula monitored with imprecise timestamps (`--timestamp-error`, paper 16): each
/// event's true time within ±`delta` (a non-negative decimal, in the trace's time unit) of
/// its timestamp. The formula is rewritten (`rvmon_imprecise::cells`) and the cascade builds
/// the rewritten formula's engine (propositional or first-order).
pub fn imprecise_monitor(
    spec: &FormulaSpec,
    delta: &str,
    interner: &mut Interner,
    offline: bool,
) -> Result<rvmon_imprecise::ImpreciseMonitor, Error> {
    use rvmon_imprecise::{cells, formula, label, Label, Plan};
    let (scaled, q) = decimal_delta(delta)?;
    let prop = rvmon_imprecise::from_formula(&spec.formula, &spec.name, &spec.text)?;
    let mut atoms = Vec::new();
    formula::atoms(&prop, &mut atoms);
    if atoms.iter().any(|a| a == cells::EVEN) {
        return Err(Error::msg(format!(
            "{}: `{}` is a name rvmon keeps for itself with --timestamp-error",
            spec.name,
            cells::EVEN
        )));
    }
    let text = cells::cell_formula(&prop, q, scaled);
    let name = format!("{} (rewritten for --timestamp-error)", spec.name);
    // (The point cells' proposition joins the signature, if there is one.)
    let sig = spec.sig.clone().map(|mut sig| {
        sig.preds.push(rvmon_core::PredDecl {
            name: cells::EVEN.to_string(),
            args: Vec::new(),
        });
        sig
    });
    let rewritten = FormulaSpec::parse(&name, text.clone(), None)?.with_signature(sig)?;
    let plan = formula_monitor(&rewritten, interner, offline)?;
    // (Bounded past: the cells the first verdict can read back, and a margin.)
    let lead = (!formula::unbounded_past(&prop)).then(|| {
        formula::horizon(&prop, false)
            .saturating_mul(2 * q)
            .saturating_add(2 * scaled + 2)
    });
    let future = formula::horizon(&prop, true);
    let ahead = future.saturating_mul(2 * q).saturating_add(2 * scaled + 2);
    let explain = format!(
        "{}\nlabels: the formula's NNF {}, its negation's {}: a verdict `violation` holds for \
         every timing, `possible-violation` for some, `undetermined` for neither\ndelay: a \
         verdict waits for the future horizon plus δ: {future} + {delta} time units\ncells: \
         {} per time unit; the rewritten formula over them: {text}",
        cells::explain(&prop, delta),
        label(&prop, false).name(),
        label(&prop, true).name(),
        2 * q
    );
    // (Without an error the observed timeline is the only one: every verdict is definite.)
    let violation = if scaled == 0 {
        Label::All
    } else {
        label(&prop, true)
    };
    Ok(rvmon_imprecise::ImpreciseMonitor::new(Plan {
        inner: plan.monitor,
        q,
        lead,
        ahead,
        violation,
        even: interner.intern(cells::EVEN),
        explain,
    }))
}

/// δ as an integer `n` and a scale `q` (δ = n/q): a non-negative decimal of at most 6
/// fractional digits.
fn decimal_delta(delta: &str) -> Result<(u64, u64), Error> {
    let bad = || {
        Error::msg(format!(
            "--timestamp-error {delta}: expected a non-negative number in the trace's time unit \
             (a decimal of at most 6 fractional digits, say 2 or 0.5)"
        ))
    };
    let (int, frac) = delta.split_once('.').unwrap_or((delta, ""));
    if int.is_empty() && frac.is_empty()
        || frac.len() > 6
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let q = 10u64.pow(frac.len() as u32);
    let n: u64 = format!("{int}{frac}").parse().map_err(|_| bad())?;
    if n > 1 << 40 {
        return Err(bad());
    }
    Ok((n, q))
}

/// The monitor of a `.modelplex` file's conditions, fed events whose inputs are its state
/// variables; `tolerance` the difference comparisons forgive (`None`: exact).
pub fn modelplex_monitor(
    name: &str,
    text: &str,
    tolerance: Option<&str>,
) -> Result<rvmon_modelplex::ModelplexMonitor, Error> {
    rvmon_modelplex::ModelplexMonitor::new(name, text, tolerance)
}

/// The monitor of an R2U2 specification: `.mltl` (r2u2_cli's) or, for `lang` `c2po` or a
/// `.c2po` file, C2PO's language; fed events whose inputs are its signals.
pub fn r2u2_monitor(
    name: &str,
    text: &str,
    lang: Option<&str>,
) -> Result<rvmon_r2u2::R2u2Monitor, Error> {
    let spec = match lang {
        Some("c2po") => rvmon_r2u2::syntax::parse_c2po(name, text)?,
        _ => rvmon_r2u2::syntax::parse_mltl(name, text)?,
    };
    rvmon_r2u2::R2u2Monitor::new(spec)
}

impl AnyMonitor {
    /// The engine's state ([`Monitor::snapshot`]).
    pub fn snapshot(&self) -> Result<Vec<u8>, Error> {
        match self {
            AnyMonitor::Points(m) => m.snapshot(),
            AnyMonitor::Events { monitor, .. } => monitor.snapshot(),
        }
    }

    /// Takes a state [`AnyMonitor::snapshot`] saved ([`Monitor::restore`]).
    pub fn restore(&mut self, state: &[u8]) -> Result<(), Error> {
        match self {
            AnyMonitor::Points(m) => m.restore(state),
            AnyMonitor::Events { monitor, .. } => monitor.restore(state),
        }
    }

    /// The end of the input ([`Monitor::finish`]).
    pub fn finish(
        &mut self,
        interner: &mut Interner,
        sink: &mut dyn rvmon_core::Sink,
    ) -> Result<(), Error> {
        match self {
            AnyMonitor::Points(m) => m.finish(interner, sink),
            AnyMonitor::Events { monitor, .. } => monitor.finish(interner, sink),
        }
    }

    /// Whether it decides each time point as it is fed ([`Monitor::decides_at_once`]).
    pub fn decides_at_once(&self) -> bool {
        match self {
            AnyMonitor::Points(m) => m.decides_at_once(),
            AnyMonitor::Events { monitor, .. } => monitor.decides_at_once(),
        }
    }

    /// Its strategy and memory ([`Monitor::describe`]).
    pub fn describe(&self) -> rvmon_core::Description {
        match self {
            AnyMonitor::Points(m) => m.describe(),
            AnyMonitor::Events { monitor, .. } => monitor.describe(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_once(name: &str, text: &str, sig: Option<&str>) -> bool {
        let sig = sig.map(|s| Signature::parse("s.sig", s).unwrap());
        let (_, m) = any_monitor(name, text, None, sig, &mut Interner::new(), None).unwrap();
        m.decides_at_once()
    }

    /// What `rvmon serve --enforce` relies on: each engine says whether a time point's
    /// verdict comes when the time point is fed.
    #[test]
    fn engines_say_whether_they_decide_each_time_point_at_once() {
        assert!(at_once("p.mtl", "p() IMPLIES ONCE[0,5] q()", None));
        assert!(!at_once("p.mtl", "p() IMPLIES EVENTUALLY[0,5] q()", None));
        assert!(!at_once("p.mtl", "p() IMPLIES NEXT q()", None));
        let sig = Some("p(int)\nq(int)\n");
        assert!(at_once("p.mfotl", "p(x) IMPLIES ONCE[0,5] q(x)", sig));
        assert!(!at_once(
            "p.mfotl",
            "p(x) IMPLIES EVENTUALLY[0,5] q(x)",
            sig
        ));
        let lola = "input x: Int64\noutput y := x.offset(by: -1).defaults(to: 0) + x\n\
                    trigger y > 5";
        assert!(at_once("s.lola", lola, None));
        let ahead = "input x: Int64\noutput y := x.offset(by: 1).defaults(to: 0)\ntrigger y > 5";
        assert!(!at_once("s.lola", ahead, None));
        assert!(at_once("s.stl", "historically[0,2](x > 0)", None));
        assert!(!at_once("s.stl", "always[0,2](x > 0)", None));
    }
}
