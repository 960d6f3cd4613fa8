//! The parametric engine behind the front door's [`rvmon_core::Monitor`]: the properties of
//! one `.rvm` file, monitored together over one trace.

use std::rc::Rc;

use rvmon_core::{
    text, Decision, Description, Error, EventRef, Interner, Kind, Payload, Sink, Sym, TimePoint,
    Value,
};

use crate::monitor::{EventKind, ParamMonitor, Report};
use crate::slicing::Binding;
use crate::spec::Property;

/// A property's view of an event name: the property, what the name means to it, and the
/// fields it binds by name (if it does).
type Concerned = (usize, EventKind, Option<Rc<[Sym]>>);

/// The properties of a specification, each with its own monitor. Every event goes to the
/// properties that declare it; entering a verdict state is a decision whose payload is the
/// binding, its category and the property's message.
pub struct PropertiesMonitor {
    props: Vec<Property>,
    monitors: Vec<ParamMonitor>,
    /// The fields that properties bind by name, interned once: per property, per event name.
    named: Vec<Vec<(String, Rc<[Sym]>)>>,
    /// The properties each event name concerns, by interned name (dense ids): an event is read
    /// once and goes only to the monitors that declare it (paper 24's simultaneous
    /// properties; each keeps its own index).
    concerned: Vec<Option<Vec<Concerned>>>,
    by_name: Vec<Value>,
    reports: Vec<Report>,
}

impl PropertiesMonitor {
    /// Monitors `props`; `interner` is the one the trace's names will be in.
    pub fn new(props: Vec<Property>, interner: &mut Interner) -> PropertiesMonitor {
        let named = props
            .iter()
            .map(|p| {
                p.fields
                    .iter()
                    .map(|(ev, fs)| {
                        let syms = fs.iter().map(|f| interner.intern_name(f));
                        (ev.clone(), syms.collect())
                    })
                    .collect()
            })
            .collect();
        let monitors = props
            .iter()
            .map(|p| {
                ParamMonitor::new(p.patterns.clone(), p.fsm.clone())
                    .with_creators(&p.creators)
                    .with_end_events(p.end_events.clone())
                    .with_constraints(&p.constraints)
            })
            .collect();
        PropertiesMonitor {
            props,
            monitors,
            named,
            concerned: Vec::new(),
            by_name: Vec::new(),
            reports: Vec::new(),
        }
    }

    /// The first property that binds an event's fields by name, and that event: such a
    /// property needs a trace whose events name their fields.
    pub fn binds_by_name(&self) -> Option<(&str, &str)> {
        self.props
            .iter()
            .find_map(|p| p.fields.first().map(|f| (p.name.as_str(), f.0.as_str())))
    }

    /// The properties events named `e.name` concern, computed once per name.
    fn concerned(&mut self, e: &EventRef, interner: &Interner) -> Vec<Concerned> {
        let sym = e.name.0 as usize;
        if self.concerned.len() <= sym {
            self.concerned.resize(sym + 1, None);
        }
        if let Some(which) = self.concerned[sym].take() {
            return which;
        }
        let name = interner.resolve(e.name);
        (0..self.monitors.len())
            .map(|k| {
                let fields = self.named[k].iter().find(|f| f.0 == name);
                let kind = self.monitors[k].event_kind(name);
                (k, kind, fields.map(|f| f.1.clone()))
            })
            .filter(|(_, kind, _)| kind.declared())
            .collect()
    }

    fn event(
        &mut self,
        tp: &TimePoint,
        e: &EventRef,
        interner: &Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        // Taken out of the cache for the loop, and put back (no copy per event).
        let which = self.concerned(e, interner);
        let result = self.dispatch(&which, tp, e, interner, sink);
        self.concerned[e.name.0 as usize] = Some(which);
        result
    }

    fn dispatch(
        &mut self,
        which: &[Concerned],
        tp: &TimePoint,
        e: &EventRef,
        interner: &Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        let name = interner.resolve(e.name);
        for (k, kind, fields) in which {
            let mut event_args = tp.args_of(e);
            if let Some(fields) = fields {
                // The pattern's arguments are these fields, in its order; an event that
                // lacks one does not match.
                if !by_field(fields, tp, e, &mut self.by_name) {
                    continue;
                }
                event_args = &self.by_name;
            }
            self.reports.clear();
            self.monitors[*k].push_kind(kind, name, event_args, &mut self.reports);
            for r in &self.reports {
                emit(&self.props[*k], r, tp, interner, sink)?;
            }
        }
        Ok(())
    }
}

/// Emits the report `r` of property `p` at `tp`.
fn emit(
    p: &Property,
    r: &Report,
    tp: &TimePoint,
    interner: &Interner,
    sink: &mut dyn Sink,
) -> Result<(), Error> {
    let pairs: &[(usize, Value)] = match &r.binding {
        Binding::Map(m) => m,
        Binding::Top => &[],
    };
    let value = |k: usize| pairs.iter().find(|x| x.0 == k).map(|x| x.1);
    let message = p.message(&r.category, |k| value(k).map(|v| text(&v, interner)));
    let params: Vec<(&str, Value)> = pairs
        .iter()
        .map(|(k, v)| (p.params[*k].as_str(), *v))
        .collect();
    let kind = if p.is_violation(&r.category) {
        Kind::Violation
    } else {
        Kind::Satisfied
    };
    let d = Decision {
        tp: tp.index,
        ts: tp.ts,
        kind,
        payload: Payload::Binding {
            property: &p.name,
            category: &r.category,
            params: &params,
            message: &message,
        },
    };
    sink.emit(&d, interner)
}

/// Writes the values of `e`'s fields named `fields` into `out`, in that order; `false` if `e`
/// lacks one (or its reader names no fields).
fn by_field(fields: &[Sym], tp: &TimePoint, e: &EventRef, out: &mut Vec<Value>) -> bool {
    out.clear();
    let (Some(names), args) = (tp.fields_of(e), tp.args_of(e)) else {
        return false;
    };
    for f in fields {
        match names.iter().position(|n| n == f) {
            Some(i) => out.push(args[i]),
            None => return false,
        }
    }
    true
}

impl rvmon_core::Monitor for PropertiesMonitor {
    /// A parametric property decides at the event that enters a verdict state.
    fn decides_at_once(&self) -> bool {
        true
    }

    fn feed(
        &mut self,
        batch: &[TimePoint],
        interner: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        for tp in batch {
            for e in &tp.events {
                self.event(tp, e, interner, sink)?;
            }
        }
        Ok(())
    }

    /// A parametric property decides at its events; the end decides nothing more.
    fn finish(&mut self, _: &mut Interner, _: &mut dyn Sink) -> Result<(), Error> {
        Ok(())
    }

    fn snapshot(&self) -> Result<Vec<u8>, Error> {
        Err(Error::msg(
            "parametric monitors cannot save their state yet (their bindings' indexes are not \
             serialisable)",
        ))
    }

    fn restore(&mut self, _: &[u8]) -> Result<(), Error> {
        Err(Error::msg(
            "parametric monitors cannot restore a saved state yet",
        ))
    }

    fn describe(&self) -> Description {
        Description {
            strategy: "parametric (rvmon-param): Algorithm A (paper 03) with creation events, a \
                       machine state per parameter binding, indexed by sub-bindings"
                .to_string(),
            memory: "one machine state per live binding of each property's parameters; a \
                     binding whose objects can no longer matter is collected"
                .to_string(),
        }
    }

    fn mark_strings(&self, mark: &mut dyn FnMut(Sym)) -> usize {
        self.monitors.iter().map(|m| m.mark_strings(mark)).sum()
    }
}
