//! MonPoly compatibility of the formula layer: its normalisation (what `-verbose` calls "the
//! analyzed formula") and its pretty-printer, reproduced rule for rule so that
//! `rvmon monpoly -verbose` prints the same header as MonPoly.

use crate::ast::*;
use crate::free_vars;
pub use crate::rewrite::{TooLarge, MAX_REWRITE_WORK};

/// MonPoly's `Rewriting.normalize`: eliminate `IMPLIES`, `EQUIV`, `FORALL`, `ALWAYS` and
/// `PAST_ALWAYS`, drop quantified variables that do not occur, push negations through
/// `AND`/`OR`, and remove double negations.
pub fn normalize(f: &Formula) -> Formula {
    normalize_negation(&normalize_syntax(f))
}

/// Ground terms folded and sugar eliminated (MonPoly's `normalize_syntax`).
pub fn normalize_syntax(f: &Formula) -> Formula {
    elim_sugar(&simplify_terms(f))
}

/// Negations pushed through `AND`/`OR`, double negations removed (`normalize_negation`).
pub fn normalize_negation(f: &Formula) -> Formula {
    elim_double_negation(&push_negation(f))
}

/// rvmon's candidates for `rvmon check`, best first: MonPoly's analysed formula; negations
/// pushed to a fixpoint (MonPoly's single pass leaves `NOT (NOT a OR NOT b)` behind when pushing
/// creates a double negation, which makes properties such as DejaVu's fifo, lock-cycle and
/// data-race properties unmonitorable for it); and that, rewritten. The caller keeps the first
/// its engine can compile (rvmon's engine accepts more than MonPoly's fragment). Each
/// rewriting is bounded by [`rewrite_work`]: a form whose rewriting needs more is left out
/// (see [`candidate_forms_within`]).
pub fn candidate_forms(f: &Formula) -> Vec<Formula> {
    candidate_forms_within(f, rewrite_work(f)).0
}

/// The work each rewriting of `f`'s candidate forms may take: [`MAX_REWRITE_WORK`], or 8 per
/// operator of `f` for a formula larger than that (a long chain, whose rewriting is linear).
pub fn rewrite_work(f: &Formula) -> usize {
    MAX_REWRITE_WORK.max(8 * crate::rewrite::operators(f))
}

/// [`candidate_forms`], each without duplicates and each rewriting within `work` (see
/// [`MAX_REWRITE_WORK`]); a form whose rewriting needs more is left out, and the reason comes
/// with the forms (for the error when none of them is monitorable). The negation-pushed form
/// needs no rewriting and is always there.
pub fn candidate_forms_within(f: &Formula, work: usize) -> (Vec<Formula>, Option<TooLarge>) {
    let mut g = normalize_syntax(f);
    loop {
        let next = elim_double_negation(&push_negation(&elim_double_negation(&g)));
        if next == g {
            break;
        }
        g = next;
    }
    let mut too_large = None;
    let mut forms: Vec<Formula> = Vec::new();
    let mut add = |form: Result<Formula, TooLarge>, forms: &mut Vec<Formula>| match form {
        Ok(form) if !forms.contains(&form) => forms.push(form),
        Ok(_) => {}
        Err(e) => too_large = Some(e),
    };
    // MonPoly's analysed formula rewrites its single-pass normal form when that is not
    // monitorable; when that normal form is `g`, its rewriting is the third candidate's.
    let (nf, rewrite_it) = analyzed_normal_form(f);
    let analyzed = if rewrite_it {
        crate::rewrite::rewrite_within(&nf, work)
    } else {
        Ok(nf.clone())
    };
    let rewritten = if rewrite_it && nf == g {
        analyzed.clone()
    } else {
        crate::rewrite::rewrite_within(&g, work)
    };
    // MonPoly's rewriting stops at a `LET`; rvmon's candidates also rewrite the bodies of
    // `LET`s (`LET h(t,l) = acq(t,l) IN use(t,x) IMPLIES ((EXISTS y. (use(y,x) AND h(y,x)))
    // OR acq(t,x))` was refused, while the same formula with `h` written out was not).
    let through_lets = if matches!(g.kind, FormulaKind::Let { .. }) {
        rewrite_through_lets(&g, work)
    } else {
        rewritten.clone()
    };
    add(analyzed, &mut forms);
    add(Ok(g), &mut forms);
    add(rewritten, &mut forms);
    add(through_lets, &mut forms);
    (forms, too_large)
}

/// MonPoly's `rewrite`, applied to the body of each `LET` (and so below nested ones), within
/// `work` steps and copies in all.
fn rewrite_through_lets(f: &Formula, work: usize) -> Result<Formula, TooLarge> {
    fn go(f: &Formula, work: &mut usize, limit: usize) -> Result<Formula, TooLarge> {
        match &f.kind {
            FormulaKind::Let { .. } => {
                let mut out = Ok(());
                let g = map_let_body(f, &mut |b| match go(b, work, limit) {
                    Ok(b) => b,
                    Err(e) => {
                        out = Err(e);
                        b.clone()
                    }
                });
                out.map(|()| g)
            }
            _ => {
                // Charged at the limit: the bodies of nested LETs share one budget.
                let r = crate::rewrite::rewrite_within(f, *work).map_err(|_| TooLarge { limit })?;
                *work = work.saturating_sub(crate::rewrite::operators(&r));
                Ok(r)
            }
        }
    }
    let mut left = work;
    go(f, &mut left, work)
}

/// The formula MonPoly analyses: normalised, but with negations pushed only when that keeps
/// the formula monitorable (`Rewriting.check_monitorability`).
pub fn analyzed_formula(f: &Formula) -> Formula {
    let (nf, rewrite_it) = analyzed_normal_form(f);
    if rewrite_it {
        crate::rewrite::rewrite(&nf)
    } else {
        nf
    }
}

/// [`analyzed_formula`], or [`TooLarge`] when its rewriting needs more than `work` steps and
/// copies (see [`MAX_REWRITE_WORK`]; MonPoly itself would build the whole formula).
pub fn analyzed_formula_within(f: &Formula, work: usize) -> Result<Formula, TooLarge> {
    let (nf, rewrite_it) = analyzed_normal_form(f);
    if rewrite_it {
        crate::rewrite::rewrite_within(&nf, work)
    } else {
        Ok(nf)
    }
}

/// The normal form [`analyzed_formula`] starts from, and whether it rewrites it (when it is
/// not monitorable).
fn analyzed_normal_form(f: &Formula) -> (Formula, bool) {
    use crate::monitorable::is_monitorable;
    let nsf = normalize_syntax(f);
    let nf = normalize_negation(&nsf);
    let nf = if is_monitorable(&nsf).is_ok() && is_monitorable(&nf).is_err() {
        nsf
    } else {
        nf
    };
    let rewrite_it = is_monitorable(&nf).is_err();
    (nf, rewrite_it)
}

/// MonPoly's `simplify_terms`: every variable-free term is replaced by its value (`2 + 3` by
/// `5`). A term whose evaluation fails (division by zero) is left for the engine to report.
/// MonPoly folds before it picks a kernel, so ground terms follow MonPoly's arithmetic under
/// `-verified` too (`f2i` of an infinite constant is 0 for both).
pub fn simplify_terms(f: &Formula) -> Formula {
    fn fold(t: &Term) -> Term {
        let mut interner = rvmon_core::Interner::new();
        let ground = !matches!(
            t,
            Term::Int(_) | Term::Float(_) | Term::Str(_) | Term::Regexp(_)
        ) && term_is_ground(t);
        if !ground {
            return t.clone();
        }
        match crate::eval::eval_term(t, &|_| None, &mut interner) {
            Ok(rvmon_core::Value::Int(i)) => Term::Int(i),
            Ok(rvmon_core::Value::Float(x)) => Term::Float(x),
            Ok(rvmon_core::Value::Str(s)) => Term::Str(interner.resolve(s).to_string()),
            _ => t.clone(),
        }
    }
    fn term_is_ground(t: &Term) -> bool {
        match t {
            Term::Var(_) => false,
            Term::Int(_) | Term::Float(_) | Term::Str(_) | Term::Regexp(_) => true,
            Term::Neg(a) | Term::Func(_, a) => term_is_ground(a),
            Term::Arith(_, a, b) => term_is_ground(a) && term_is_ground(b),
        }
    }
    let mut g = f.clone();
    match &mut g.kind {
        FormulaKind::Pred { args, .. } => args.iter_mut().for_each(|a| *a = fold(a)),
        FormulaKind::Cmp { lhs, rhs, .. } => {
            *lhs = fold(lhs);
            *rhs = fold(rhs);
        }
        FormulaKind::StrRel {
            lhs, rhs, groups, ..
        } => {
            *lhs = fold(lhs);
            *rhs = fold(rhs);
            groups.iter_mut().flatten().for_each(|t| *t = fold(t));
        }
        _ => {}
    }
    map_children(&g, &mut simplify_terms)
}

fn mk(kind: FormulaKind, span: Span) -> Formula {
    Formula::new(kind, span)
}

fn not(f: Formula) -> Formula {
    let span = f.span;
    mk(FormulaKind::Not(Box::new(f)), span)
}

/// `LET p = def IN g(body)`: the same definition, a transformed body (MonPoly's rewrites do not
/// descend into definitions).
pub(crate) fn map_let_body(f: &Formula, g: &mut dyn FnMut(&Formula) -> Formula) -> Formula {
    let mut out = f.clone();
    if let FormulaKind::Let { body, .. } = &mut out.kind {
        **body = g(body);
    }
    out
}

/// `f` with each direct subformula `c` replaced by `g(c)`, left to right (a `LET`'s
/// definition, then its body), everything else as it is.
pub fn map_children(f: &Formula, g: &mut dyn FnMut(&Formula) -> Formula) -> Formula {
    let kind = match &f.kind {
        k @ (FormulaKind::Bool(_)
        | FormulaKind::Pred { .. }
        | FormulaKind::Cmp { .. }
        | FormulaKind::StrRel { .. }) => k.clone(),
        FormulaKind::Not(b) => FormulaKind::Not(Box::new(g(b))),
        FormulaKind::Bool2 { op, lhs, rhs } => FormulaKind::Bool2 {
            op: *op,
            lhs: Box::new(g(lhs)),
            rhs: Box::new(g(rhs)),
        },
        FormulaKind::Quant { q, vars, body } => FormulaKind::Quant {
            q: *q,
            vars: vars.clone(),
            body: Box::new(g(body)),
        },
        FormulaKind::Unary { op, interval, body } => FormulaKind::Unary {
            op: *op,
            interval: *interval,
            body: Box::new(g(body)),
        },
        FormulaKind::Binary {
            op,
            interval,
            lhs,
            rhs,
        } => FormulaKind::Binary {
            op: *op,
            interval: *interval,
            lhs: Box::new(g(lhs)),
            rhs: Box::new(g(rhs)),
        },
        FormulaKind::Let {
            name,
            params,
            def,
            body,
        } => FormulaKind::Let {
            name: name.clone(),
            params: params.clone(),
            def: Box::new(g(def)),
            body: Box::new(g(body)),
        },
        FormulaKind::Agg {
            result,
            op,
            over,
            group,
            body,
        } => FormulaKind::Agg {
            result: result.clone(),
            op: *op,
            over: over.clone(),
            group: group.clone(),
            body: Box::new(g(body)),
        },
    };
    mk(kind, f.span)
}

fn elim_sugar(f: &Formula) -> Formula {
    let span = f.span;
    let bool2 = |op, l, r| {
        mk(
            FormulaKind::Bool2 {
                op,
                lhs: Box::new(l),
                rhs: Box::new(r),
            },
            span,
        )
    };
    match &f.kind {
        FormulaKind::Bool2 {
            op: BoolOp::Implies,
            lhs,
            rhs,
        } => bool2(
            BoolOp::Or,
            elim_sugar(&not((**lhs).clone())),
            elim_sugar(rhs),
        ),
        FormulaKind::Bool2 {
            op: BoolOp::Equiv,
            lhs,
            rhs,
        } => bool2(
            BoolOp::And,
            bool2(
                BoolOp::Or,
                elim_sugar(&not((**lhs).clone())),
                elim_sugar(rhs),
            ),
            bool2(
                BoolOp::Or,
                elim_sugar(lhs),
                elim_sugar(&not((**rhs).clone())),
            ),
        ),
        FormulaKind::Quant {
            q: Quant::Forall,
            vars,
            body,
        } => {
            let inner = mk(
                FormulaKind::Quant {
                    q: Quant::Exists,
                    vars: vars.clone(),
                    body: Box::new(not((**body).clone())),
                },
                span,
            );
            elim_sugar(&not(inner))
        }
        FormulaKind::Quant {
            q: Quant::Exists,
            vars,
            body,
        } => {
            let nb = elim_sugar(body);
            let fv = free_vars(&nb);
            let kept: Vec<String> = vars.iter().filter(|v| fv.contains(v)).cloned().collect();
            if kept.is_empty() {
                nb
            } else {
                mk(
                    FormulaKind::Quant {
                        q: Quant::Exists,
                        vars: kept,
                        body: Box::new(nb),
                    },
                    span,
                )
            }
        }
        FormulaKind::Unary {
            op: op @ (UnaryTemporal::Always | UnaryTemporal::PastAlways),
            interval,
            body,
        } => {
            let dual = op.dual().expect("ALWAYS and PAST_ALWAYS have duals");
            not(mk(
                FormulaKind::Unary {
                    op: dual,
                    interval: *interval,
                    body: Box::new(elim_sugar(&not((**body).clone()))),
                },
                span,
            ))
        }
        _ => map_children(f, &mut elim_sugar),
    }
}

fn push_negation(f: &Formula) -> Formula {
    let span = f.span;
    match &f.kind {
        FormulaKind::Not(inner) => match &inner.kind {
            FormulaKind::Bool2 {
                op: op @ (BoolOp::And | BoolOp::Or),
                lhs,
                rhs,
            } => {
                let dual = if *op == BoolOp::And {
                    BoolOp::Or
                } else {
                    BoolOp::And
                };
                mk(
                    FormulaKind::Bool2 {
                        op: dual,
                        lhs: Box::new(push_negation(&not((**lhs).clone()))),
                        rhs: Box::new(push_negation(&not((**rhs).clone()))),
                    },
                    span,
                )
            }
            FormulaKind::Unary {
                op: op @ (UnaryTemporal::Always | UnaryTemporal::PastAlways),
                interval,
                body,
            } => {
                let dual = op.dual().expect("ALWAYS and PAST_ALWAYS have duals");
                mk(
                    FormulaKind::Unary {
                        op: dual,
                        interval: *interval,
                        body: Box::new(push_negation(&not((**body).clone()))),
                    },
                    span,
                )
            }
            FormulaKind::Bool2 {
                op: BoolOp::Implies | BoolOp::Equiv,
                ..
            } => push_negation(&not(push_negation(inner))),
            FormulaKind::Let { .. } => map_let_body(inner, &mut |b| push_negation(&not(b.clone()))),
            _ => not(push_negation(inner)),
        },
        // MonPoly does not descend into LET definitions here.
        FormulaKind::Let { .. } => map_let_body(f, &mut push_negation),
        _ => map_children(f, &mut push_negation),
    }
}

fn elim_double_negation(f: &Formula) -> Formula {
    match &f.kind {
        FormulaKind::Not(inner) => match &inner.kind {
            FormulaKind::Not(g) => elim_double_negation(g),
            _ => not(elim_double_negation(inner)),
        },
        _ => map_children(f, &mut elim_double_negation),
    }
}

/// Prints a formula the way MonPoly's `MFOTL.string_of_formula` does: binary operators are
/// parenthesised unless at the top, unary ones only on the left of a binary operator (and on
/// the right of `AND`).
pub fn to_monpoly_string(f: &Formula) -> String {
    let mut out = String::new();
    print_rec(f, true, false, &mut out);
    out
}

/// A comparison as MonPoly prints it: it parses `a > b` as `b < a` and `a >= b` as `b <= a`.
fn print_cmp(op: CmpOp, lhs: &Term, rhs: &Term, out: &mut String) {
    let (l, sym, r) = match op {
        CmpOp::Eq => (lhs, "=", rhs),
        CmpOp::Lt => (lhs, "<", rhs),
        CmpOp::Le => (lhs, "<=", rhs),
        CmpOp::Gt => (rhs, "<", lhs),
        CmpOp::Ge => (rhs, "<=", lhs),
    };
    out.push_str(&term_string(l));
    out.push(' ');
    out.push_str(sym);
    out.push(' ');
    out.push_str(&term_string(r));
}

fn print_rec(f: &Formula, top: bool, par: bool, out: &mut String) {
    match &f.kind {
        FormulaKind::Bool(b) => out.push_str(if *b { "0 = 0" } else { "0 = 1" }),
        FormulaKind::Cmp { op, lhs, rhs } => print_cmp(*op, lhs, rhs, out),
        FormulaKind::StrRel {
            op,
            lhs,
            rhs,
            groups,
        } => {
            out.push_str(&term_string(lhs));
            out.push_str(if *op == StrOp::Substring {
                " SUBSTRING "
            } else {
                " MATCHES "
            });
            out.push_str(&term_string(rhs));
            if !groups.is_empty() {
                let gs: Vec<String> = groups
                    .iter()
                    .map(|g| g.as_ref().map_or_else(|| "_".to_string(), term_string))
                    .collect();
                out.push_str(&format!(" ({})", gs.join(", ")));
            }
        }
        FormulaKind::Pred { name, args } => {
            out.push_str(name);
            out.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&term_string(a));
            }
            out.push(')');
        }
        _ => {
            let outer = par && !top;
            if outer {
                out.push('(');
            }
            match &f.kind {
                FormulaKind::Not(b) => {
                    out.push_str("NOT ");
                    print_rec(b, false, false, out);
                }
                FormulaKind::Agg {
                    result,
                    op,
                    over,
                    group,
                    body,
                } => {
                    out.push_str(&format!("{result} <- {} {over}", op.keyword()));
                    if !group.is_empty() {
                        out.push_str("; ");
                        out.push_str(&group.join(","));
                    }
                    out.push(' ');
                    print_rec(body, false, false, out);
                }
                FormulaKind::Quant { q, vars, body } => {
                    out.push_str(if *q == Quant::Exists {
                        "EXISTS "
                    } else {
                        "FORALL "
                    });
                    out.push_str(&vars.join(", "));
                    out.push_str(". ");
                    print_rec(body, false, false, out);
                }
                FormulaKind::Unary { op, interval, body } => {
                    out.push_str(if *op == UnaryTemporal::Previous {
                        "PREVIOUS"
                    } else {
                        op.keyword()
                    });
                    out.push_str(&interval_string(interval));
                    out.push(' ');
                    print_rec(body, false, false, out);
                }
                _ => {
                    let inner = !par && !top;
                    if inner {
                        out.push('(');
                    }
                    match &f.kind {
                        FormulaKind::Bool2 { op, lhs, rhs } => {
                            print_rec(lhs, false, true, out);
                            out.push_str(match op {
                                BoolOp::And => " AND ",
                                BoolOp::Or => " OR ",
                                BoolOp::Implies => " IMPLIES ",
                                BoolOp::Equiv => " EQUIV ",
                            });
                            print_rec(rhs, false, *op == BoolOp::And, out);
                        }
                        FormulaKind::Binary {
                            op,
                            interval,
                            lhs,
                            rhs,
                        } => {
                            print_rec(lhs, false, true, out);
                            out.push(' ');
                            out.push_str(op.keyword());
                            out.push_str(&interval_string(interval));
                            out.push(' ');
                            print_rec(rhs, false, false, out);
                        }
                        FormulaKind::Let {
                            name,
                            params,
                            def,
                            body,
                        } => {
                            out.push_str("LET ");
                            out.push_str(name);
                            out.push('(');
                            out.push_str(&params.join(","));
                            out.push_str(") = ");
                            print_rec(def, false, true, out);
                            // MonPoly pads the IN line to the width of the print prefix,
                            // which is two spaces in its `-verbose` header.
                            out.push_str("\n  IN ");
                            print_rec(body, false, false, out);
                        }
                        _ => unreachable!("atoms and unary operators are handled above"),
                    }
                    if inner {
                        out.push(')');
                    }
                }
            }
            if outer {
                out.push(')');
            }
        }
    }
}

pub fn interval_string(i: &Interval) -> String {
    let lo = match i.lo {
        Bound::Open(a) => format!("({a},"),
        Bound::Closed(a) => format!("[{a},"),
        Bound::Infinite => "(*,".to_string(),
    };
    let hi = match i.hi {
        Bound::Open(b) => format!("{b})"),
        Bound::Closed(b) => format!("{b}]"),
        Bound::Infinite => "*)".to_string(),
    };
    lo + &hi
}

/// MonPoly's `Predicate.string_of_term`: operators parenthesised except at the top.
pub fn term_string(t: &Term) -> String {
    fn go(t: &Term, top: bool) -> String {
        let (atomic, s) = match t {
            Term::Var(v) => (true, v.clone()),
            Term::Int(i) => (true, i.to_string()),
            Term::Float(f) => (true, format_g(*f)),
            Term::Str(s) => (true, format!("\"{s}\"")),
            Term::Regexp(r) => (true, format!("r\"{r}\"")),
            Term::Func(func, a) => (false, format!("{}({})", func.name(), go(a, true))),
            Term::Neg(a) => (false, format!("-{}", go(a, false))),
            Term::Arith(op, a, b) => {
                let sym = match op {
                    ArithOp::Add => "+",
                    ArithOp::Sub => "-",
                    ArithOp::Mul => "*",
                    ArithOp::Div => "/",
                    ArithOp::Mod => "mod",
                };
                (false, format!("{} {sym} {}", go(a, false), go(b, false)))
            }
        };
        if top || atomic {
            s
        } else {
            format!("({s})")
        }
    }
    go(t, true)
}

/// C's `%g`: six significant digits, trailing zeros removed, exponent form for very large or
/// small magnitudes. MonPoly prints floats with it.
pub fn format_g(f: f64) -> String {
    format_g_precision(f, 6)
}

/// C's `%.<precision>g`.
pub fn format_g_precision(f: f64, precision: i32) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    if !f.is_finite() {
        return if f.is_nan() {
            "nan".into()
        } else if f > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let p = precision.max(1) as usize;
    // Rounding to p significant digits decides the exponent (999999.5 -> 1e+06).
    let sci = format!("{:.*e}", p - 1, f);
    let (mant, e) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = e.parse().unwrap_or(0);
    if exp < -4 || exp >= precision {
        let mant = trim_zeros(mant);
        format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        let decimals = (precision - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{:.*}", decimals, f)).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// MonPoly's `Filter_empty_tp.is_filterable_empty_tp`: may time points without any event of the
/// formula's predicates be skipped? Only when the (normalised) formula is false at every such
/// time point, whatever the history, and no `PREVIOUS`/`NEXT` counts positions.
pub fn is_filterable_empty_tp(f: &Formula) -> bool {
    fn has_prev_next(f: &Formula) -> bool {
        matches!(
            &f.kind,
            FormulaKind::Unary {
                op: UnaryTemporal::Previous | UnaryTemporal::Next,
                ..
            }
        ) || f.children().into_iter().any(has_prev_next)
    }
    let l = empty_tp_labels(f);
    l.falsified && l.event_relative && !has_prev_next(f)
}

/// MonPoly's labels of a subformula at a time point without events: always true, always false,
/// and "event-relative" (its value there depends only on events, not on the empty point).
#[derive(Clone, Copy, Default)]
struct EmptyTpLabels {
    verified: bool,
    falsified: bool,
    event_relative: bool,
}

fn empty_tp_labels(f: &Formula) -> EmptyTpLabels {
    let ev = |event_relative| EmptyTpLabels {
        event_relative,
        ..Default::default()
    };
    match &f.kind {
        FormulaKind::Pred { .. } => EmptyTpLabels {
            falsified: true,
            event_relative: true,
            verified: false,
        },
        FormulaKind::Cmp { .. } | FormulaKind::Bool(_) => ev(true),
        FormulaKind::Not(g) => {
            let l = empty_tp_labels(g);
            EmptyTpLabels {
                verified: l.falsified,
                falsified: l.verified,
                event_relative: l.event_relative,
            }
        }
        FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs,
            rhs,
        } => {
            let (a, b) = (empty_tp_labels(lhs), empty_tp_labels(rhs));
            EmptyTpLabels {
                verified: a.verified && b.verified,
                falsified: a.falsified || b.falsified,
                event_relative: a.event_relative && b.event_relative,
            }
        }
        FormulaKind::Bool2 {
            op: BoolOp::Or,
            lhs,
            rhs,
        } => {
            let (a, b) = (empty_tp_labels(lhs), empty_tp_labels(rhs));
            EmptyTpLabels {
                verified: a.verified || b.verified,
                falsified: a.falsified && b.falsified,
                event_relative: a.event_relative && b.event_relative,
            }
        }
        FormulaKind::Quant {
            q: Quant::Exists,
            body,
            ..
        } => empty_tp_labels(body),
        FormulaKind::Unary {
            op: UnaryTemporal::Once | UnaryTemporal::Eventually,
            body,
            ..
        } => {
            let l = empty_tp_labels(body);
            ev(l.event_relative && l.falsified)
        }
        FormulaKind::Binary { lhs, rhs, .. } => {
            let (a, b) = (empty_tp_labels(lhs), empty_tp_labels(rhs));
            ev(a.event_relative && a.verified && b.event_relative && b.falsified)
        }
        // Sugar is gone after normalisation; PREVIOUS, NEXT and LET get no labels.
        _ => EmptyTpLabels::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_formula;

    fn analyzed(src: &str) -> String {
        to_monpoly_string(&normalize(&parse_formula("f", src).unwrap()))
    }

    #[test]
    fn prints_like_monpoly() {
        assert_eq!(analyzed("T() AND NOT ( 0 =  0)"), "T() AND (NOT 0 = 0)");
        assert_eq!(
            analyzed("NOT TRUE UNTIL[0,0] r()"),
            "(NOT 0 = 0) UNTIL[0,0] r()"
        );
        assert_eq!(analyzed("PREVIOUS T()"), "PREVIOUS[0,*) T()");
        assert_eq!(
            analyzed("(NEXT[0,0] (NEXT[0,0] (PREVIOUS (EVENTUALLY[0,0] FALSE))))"),
            "NEXT[0,0] NEXT[0,0] PREVIOUS[0,*) EVENTUALLY[0,0] 0 = 1"
        );
        assert_eq!(
            analyzed("NOT ((NEXT[0,0] r()) OR NEXT[0,0] s()) UNTIL[0,0] r()"),
            "((NOT NEXT[0,0] r()) AND (NOT NEXT[0,0] s())) UNTIL[0,0] r()"
        );
        assert_eq!(
            analyzed("NOT (NEXT[0,0] s() OR NEXT[0,0] r()) UNTIL[0,0] r()"),
            "(NOT NEXT[0,0] (s() OR NEXT[0,0] r())) UNTIL[0,0] r()"
        );
        assert_eq!(analyzed("x > 5 AND P(x)"), "5 < x AND P(x)");
    }

    #[test]
    fn percent_g() {
        assert_eq!(format_g(0.5), "0.5");
        assert_eq!(format_g(1.1), "1.1");
        assert_eq!(format_g(-42.0), "-42");
        assert_eq!(format_g(9.87654321e30), "9.87654e+30");
        assert_eq!(format_g(123456789.0), "1.23457e+08");
        assert_eq!(format_g(0.0001), "0.0001");
        assert_eq!(format_g(0.00001), "1e-05");
        assert_eq!(format_g(999999.5), "1e+06");
    }
}
