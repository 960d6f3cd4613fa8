//! The first-order engine against the brute-force reference semantics (active-domain
//! enumeration, straight from MFOTL's definitions) on random formulas of the monitorable
//! fragment and random traces with equal timestamps and empty time points. Formulas go through
//! the same pipeline as `rvmon monpoly` (normalisation, MonPoly's rewriting, compilation);
//! those outside the fragment are discarded by the generator.

use proptest::prelude::*;
use rvmon_core::{Interner, StringCollection, TimePoint, Value};
use rvmon_fo::{compile, FoEngine};
use rvmon_logic::monpoly::analyzed_formula;
use rvmon_logic::order::order_conjuncts;
use rvmon_logic::pushdown::push_comparisons;
use rvmon_logic::reference::{evaluate_fo, time_point, OrdValue, RefFoTimePoint};
use rvmon_logic::{free_vars, parse_formula};
use rvmon_trace::Signature;

const SIG: &str = "P(int) Q(int,int) R(int)";

fn interval(bounded: bool) -> impl Strategy<Value = String> {
    let b = (0u64..3, 0u64..4).prop_map(|(a, len)| format!("[{a},{}]", a + len));
    if bounded {
        b.boxed()
    } else {
        prop_oneof![3 => b, 1 => (0u64..2).prop_map(|a| format!("[{a},*)"))].boxed()
    }
}

/// A boolean combination of atoms over x and y: as the left operand of a temporal operator
/// it is usually not monitorable by itself, and becomes a guard tested on the stored tuples
/// (and, where it can fail only for tuples an atom names, one tested through an index).
fn guard() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(
        &[
            "P(x)",
            "P(y)",
            "Q(x,y)",
            "Q(y,x)",
            "R(x)",
            "(ONCE P(y))",
            "TRUE",
            "FALSE",
        ][..],
    )
    .prop_map(String::from);
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|a| format!("(NOT {a})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} AND {b})")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("({a} OR {b})")),
        ]
    })
}

fn formula() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(
        &[
            "P(x)", "P(y)", "Q(x,y)", "Q(y,x)", "Q(x,x)", "R(x)", "P(2)", "Q(x,1)", "TRUE",
        ][..],
    )
    .prop_map(String::from);
    leaf.prop_recursive(5, 40, 2, |inner| {
        prop_oneof![
            // A subformula beside a copy of itself with x and y swapped: the copies compile
            // to one node (shared up to renaming), read in two roles (walked and tested,
            // projected and tested, both sides of a join). A state walked by an exists-join
            // that also tested it was once probed in place, and read as markers.
            (
                inner.clone(),
                prop::sample::select(&["AND", "AND NOT", "EXISTS", "NOT EXISTS", "PREVIOUS"][..])
            )
                .prop_map(|(a, how)| {
                    let swapped: String = a
                        .chars()
                        .map(|c| match c {
                            'x' => 'y',
                            'y' => 'x',
                            c => c,
                        })
                        .collect();
                    match how {
                        "EXISTS" => format!("({a} AND (EXISTS y. {swapped}))"),
                        "NOT EXISTS" => format!("({a} AND NOT (EXISTS y. {swapped}))"),
                        "PREVIOUS" => format!("({a} AND NOT (PREVIOUS {swapped}))"),
                        _ => format!("({a} {how} {swapped})"),
                    }
                }),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} AND {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} AND NOT {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} OR {b})")),
            (inner.clone(), prop::sample::select(&["x", "y"][..]))
                .prop_map(|(a, v)| format!("(EXISTS {v}. {a})")),
            inner.clone().prop_map(|a| format!("({a} AND x = 2)")),
            inner.clone().prop_map(|a| format!("({a} AND x < y)")),
            // Filters, negated and with the constant first (resolved operands).
            (
                inner.clone(),
                prop::sample::select(&["NOT x = 2", "1 <= x", "NOT y <= x"][..])
            )
                .prop_map(|(a, c)| format!("({a} AND {c})")),
            (
                inner.clone(),
                interval(false),
                prop::sample::select(&["PREVIOUS", "ONCE"][..])
            )
                .prop_map(|(a, i, op)| format!("({op}{i} {a})")),
            (
                inner.clone(),
                interval(true),
                prop::sample::select(&["NEXT", "EVENTUALLY"][..])
            )
                .prop_map(|(a, i, op)| format!("({op}{i} {a})")),
            // A join whose left operand waits for a future operator while the right one is
            // known at once: the shape where the engine reduces the waiting right operand.
            (
                inner.clone(),
                inner.clone(),
                inner.clone(),
                interval(true),
                any::<bool>()
            )
                .prop_map(|(a, b, c, i, neg)| format!(
                    "(({a} AND EVENTUALLY{i} {c}) AND {}{b})",
                    if neg { "NOT " } else { "" }
                )),
            (inner.clone(), inner.clone(), interval(false), any::<bool>()).prop_map(
                |(a, b, i, neg)| format!("({}{a} SINCE{i} {b})", if neg { "NOT " } else { "" })
            ),
            (inner.clone(), inner.clone(), interval(true), any::<bool>()).prop_map(
                |(a, b, i, neg)| format!("({}{a} UNTIL{i} {b})", if neg { "NOT " } else { "" })
            ),
            // `EXISTS y` over a join that binds y and a test of the result: an exists-join
            // when the shape allows it.
            (inner.clone(), exists_b(), exists_c())
                .prop_map(|(a, b, c)| format!("(EXISTS y. (({a} AND {b}) AND {c}))")),
            // `a AND NOT EXISTS y. (b AND c)`: an anti-exists-join when the shape allows it.
            (inner.clone(), exists_b(), exists_c())
                .prop_map(|(a, b, c)| format!("({a} AND NOT (EXISTS y. ({b} AND {c})))")),
            // A growing `ONCE` that its consumer only tests (probed in place, by version).
            // Its reader may wait for a future operator, and be joined further with a relation
            // that waits for it in turn.
            (
                prop::sample::select(
                    &[
                        "P(x)",
                        "Q(x,y)",
                        "Q(x,x)",
                        "(R(x) AND P(y))",
                        "(NEXT P(x))",
                        "(NEXT NEXT Q(x,y))",
                        "(EVENTUALLY[0,2] P(x))",
                    ][..]
                ),
                prop::sample::select(&["P(x)", "R(x)", "Q(x,x)", "(P(x) OR R(x))"][..]),
                prop::sample::select(&["[0,*)", "[1,*)", "[0,2]"][..]),
                prop::sample::select(&["", "NOT "][..]),
                prop::sample::select(&["", "PREVIOUS ", "PREVIOUS[1,2] "][..]),
                prop::sample::select(&["", " AND Q(x,y)"][..]),
            )
                .prop_map(|(a, b, i, not, prev, and)| {
                    format!("(({a} AND {not}{prev}(ONCE{i} {b})){and})")
                }),
            versioned_since(),
            (guard(), inner.clone(), interval(false))
                .prop_map(|(g, b, i)| format!("({g} SINCE{i} (Q(x,y) AND {b}))")),
            (guard(), inner, interval(true))
                .prop_map(|(g, b, i)| format!("({g} UNTIL{i} (Q(x,y) AND {b}))")),
        ]
    })
}

/// An unbounded SINCE whose left operand removes tuples, which its consumer only
/// tests: versioned, its removals kept as tombstones while a reader may still test
/// an earlier position (removed and re-entered within a batch, with values 1..3 and
/// up to 4 events per time point). Read once or twice, after a future operator,
/// through a fused PREVIOUS; identity keys, keys through `by_key`, a permuted key,
/// and positive left operands. Also read by joins that add its columns (`P(x) AND (… SINCE
/// Q(x,y))`), or that add the other operand's (the state on the left, `FLIP`): those probe
/// it through its index on the shared columns.
fn versioned_since() -> impl Strategy<Value = String> {
    (
        prop::sample::select(
            &[
                "P(x)",
                "Q(x,y)",
                "(R(x) AND P(y))",
                "(NEXT P(x))",
                "(EVENTUALLY[0,2] P(x))",
                "(NEXT NEXT Q(x,y))",
            ][..],
        ),
        prop::sample::select(
            &[
                "NOT R(x)",
                "NOT P(x)",
                "R(x)",
                "NOT Q(x,x)",
                "NOT (EXISTS y. Q(x,y))",
                "NOT Q(y,x)",
                "NOT R(y)",
            ][..],
        ),
        prop::sample::select(&["P(x)", "R(x)", "Q(x,x)", "(P(x) OR R(x))", "Q(x,y)"][..]),
        prop::sample::select(&["[0,*)", "[1,*)"][..]),
        prop::sample::select(&["", "NOT ", "FLIP"][..]),
        prop::sample::select(&["", "PREVIOUS ", "PREVIOUS[1,2] "][..]),
        prop::sample::select(&["", " AND Q(x,y)", " OR (R(x) AND S)"][..]),
    )
        .prop_map(|(a, l, b, i, not, prev, and)| {
            let since = format!("({l} SINCE{i} {b})");
            let and = and.replace('S', &format!("NOT {since}"));
            if not == "FLIP" {
                format!("(({prev}{since} AND {a}){and})")
            } else {
                format!("(({a} AND {not}{prev}{since}){and})")
            }
        })
}

/// Existential joins over versioned states: `b` (binding y) probed through its index, `c`
/// tested, either one shrinking.
fn versioned_exists() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["P(x)", "R(x)", "(NEXT P(x))"][..]),
        prop::sample::select(
            &[
                "((NOT R(y)) SINCE Q(x,y))",
                "((NOT P(x)) SINCE Q(x,y))",
                "(R(y) SINCE Q(x,y))",
                "Q(x,y)",
            ][..],
        ),
        prop::sample::select(&["P(y)", "R(y)", "((NOT P(y)) SINCE R(y))", "(ONCE R(y))"][..]),
    )
        .prop_map(|(a, b, c)| format!("(EXISTS y. (({a} AND {b}) AND {c}))"))
}

/// The operand that binds `y` in `EXISTS y. ((a AND b) AND c)` and `a AND NOT EXISTS y. (b AND c)`.
fn exists_b() -> impl Strategy<Value = String> {
    prop::sample::select(
        &[
            "Q(x,y)",
            "Q(y,x)",
            "(ONCE[0,2] Q(x,y))",
            "(Q(x,y) OR Q(y,x))",
            "((NOT R(x)) SINCE Q(x,y))",
            "((NOT R(y)) SINCE Q(x,y))",
            "(R(y) SINCE Q(x,y))",
            "(PREVIOUS ((NOT P(y)) SINCE Q(x,y)))",
        ][..],
    )
    .prop_map(String::from)
}

/// The test `c` in those shapes.
fn exists_c() -> impl Strategy<Value = String> {
    prop::sample::select(
        &[
            "P(y)",
            "R(y)",
            "Q(x,y)",
            "(ONCE R(y))",
            "(P(y) OR R(x))",
            "((NOT P(y)) SINCE R(y))",
            "((NOT R(x)) SINCE Q(x,y))",
            "(ONCE Q(y,x))",
        ][..],
    )
    .prop_map(String::from)
}

/// `a AND NOT EXISTS y. (b AND c)` over versioned states, `a` waiting for the future or not.
fn anti_exists() -> impl Strategy<Value = String> {
    (
        prop::sample::select(
            &[
                "P(x)",
                "R(x)",
                "(NEXT P(x))",
                "(P(x) AND ONCE R(x))",
                "(EVENTUALLY[0,2] P(x))",
                // Joins that the anti-exists-join makes itself, pair by pair: one that adds a
                // column, one through a versioned state's index, one on both sides.
                "(P(x) AND Q(x,z))",
                "(P(x) AND ONCE Q(x,z))",
                "((ONCE P(x)) AND Q(z,x))",
            ][..],
        ),
        exists_b(),
        exists_c(),
    )
        .prop_map(|(a, b, c)| format!("({a} AND NOT (EXISTS y. ({b} AND {c})))"))
}

/// Exists-joins over a join whose left operand binds `z` and right one `x`, with `b` keyed by
/// `x` and `c` by `z`: the compiler swaps their roles, so that the pairs of one left tuple
/// share a lookup (`fuse_joins_into_exists_joins`).
fn swapped_exists() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["(P(z) AND ONCE Q(z,x))", "(R(z) AND Q(x,z))"][..]),
        exists_b(),
        prop::sample::select(
            &[
                "Q(z,y)",
                "(ONCE Q(y,z))",
                "((NOT R(z)) SINCE Q(z,y))",
                "(PREVIOUS ((NOT P(y)) SINCE Q(z,y)))",
            ][..],
        ),
        any::<bool>(),
    )
        .prop_map(|(a, b, c, negated)| {
            if negated {
                format!("({a} AND NOT (EXISTS y. ({b} AND {c})))")
            } else {
                format!("(EXISTS y. (({a} AND {b}) AND {c}))")
            }
        })
}

/// Projections of versioned states that their readers test through the state's index: an
/// anti-join, a semi-join or an existential join's test, with or without a `PREVIOUS` (which
/// `push_exists` leaves above the projection), the state shrinking or growing, the reader
/// behind a future operator or not.
fn versioned_projection() -> impl Strategy<Value = String> {
    (
        prop::sample::select(
            &[
                "P(x)",
                "R(x)",
                "(NEXT P(x))",
                "(EVENTUALLY[0,2] P(x))",
                "(P(x) AND R(z))",
            ][..],
        ),
        prop::sample::select(&["NOT R(y)", "NOT P(x)", "R(y)", "NOT Q(x,y)", "TRUE"][..]),
        prop::sample::select(&["Q(x,y)", "Q(y,x)", "(Q(x,y) AND R(y))", "(P(x) AND R(y))"][..]),
        prop::sample::select(&["", "PREVIOUS ", "PREVIOUS[1,2] "][..]),
        prop::sample::select(&["[0,*)", "[1,*)"][..]),
        prop::sample::select(&["AND NOT", "AND", "EXISTS", "SHARED AND NOT", "SHARED AND"][..]),
    )
        .prop_map(|(a, l, b, prev, i, how)| {
            let since = if l == "TRUE" {
                format!("(ONCE{i} {b})")
            } else {
                format!("(({l}) SINCE{i} {b})")
            };
            match how {
                // The projection (onto x and y) as the test of an existential join.
                "EXISTS" => {
                    let (l, b) = (l.replace('y', "w"), b.replace('y', "w"));
                    let since = if l == "TRUE" {
                        format!("(ONCE{i} ({b} AND Q(x,y)))")
                    } else {
                        format!("(({l}) SINCE{i} ({b} AND Q(x,y)))")
                    };
                    format!("(EXISTS y. (({a} AND Q(x,y)) AND (EXISTS w. {prev}{since})))")
                }
                // The state also read, under other names, by a test of its own (DejaVu's
                // locks-basic reads `held` through `EXISTS s. PREVIOUS held(s,l)` and tests
                // `PREVIOUS held(t,l)`): one state shared up to renaming, with two readers.
                "SHARED AND NOT" | "SHARED AND" => {
                    let test = how.trim_start_matches("SHARED ");
                    let renamed = format!("{prev}{since}").replace('y', "w");
                    format!(
                        "(({a} AND NOT (EXISTS y. {prev}{since})) \
                         OR ({a} AND (EXISTS w. (Q(x,w) {test} {renamed}))))"
                    )
                }
                _ => format!("({a} {how} (EXISTS y. {prev}{since}))"),
            }
        })
}

/// Versioned states that a past operator's guard tests (its left operand, not monitorable
/// alone, tested on the right operand's tuples, as in DejaVu's data-race lockset): the leaf
/// `h` shrinking or growing, tested positively or negatively, beside a trigger leaf.
fn versioned_guard() -> impl Strategy<Value = String> {
    (
        prop::sample::select(
            &[
                "((NOT R(y)) SINCE Q(x,y))",
                "((NOT R(x)) SINCE Q(x,y))",
                "(ONCE Q(y,x))",
                "(PREVIOUS ((NOT P(y)) SINCE Q(x,y)))",
            ][..],
        ),
        prop::sample::select(
            &[
                "NOT (P(x) AND NOT H)",
                "NOT (P(y) AND H)",
                "(NOT R(x) OR H)",
                "NOT (P(x) AND NOT H) AND NOT R(y)",
                // `h` as the trigger's leaf, walked: not versioned for this reader.
                "NOT (H AND NOT (P(y) OR R(x)))",
            ][..],
        ),
        prop::sample::select(&["Q(x,y)", "(Q(x,y) AND H)", "(P(x) AND H)"][..]),
        prop::sample::select(&["[0,*)", "[1,*)", "[0,2]"][..]),
        // (Not `Q(x,y) AND S`: `S` holds wherever `Q(x,y)` does, whatever its guard did.)
        prop::sample::select(&["(P(x) AND S)", "((P(x) AND R(y)) AND NOT S)", "(ONCE S)"][..]),
    )
        .prop_map(|(h, left, right, i, reader)| {
            let since = format!(
                "(({}) SINCE{i} {})",
                left.replace('H', h),
                right.replace('H', h)
            );
            reader.replace('S', &since)
        })
}

/// Nested quantifiers that `push_exists` leaves nested (it does not push one quantifier
/// through another), compiled as one projection of the body, its kept columns composed; with
/// a `PREVIOUS` fused into the state below it, tested through that state or not.
fn nested_exists() -> impl Strategy<Value = String> {
    prop::sample::select(
        &[
            "(EXISTS x. EXISTS y. (Q(x,y) AND Q(y,z)))",
            "(EXISTS y. EXISTS x. (Q(x,y) AND Q(y,z)))",
            "(P(z) AND NOT (EXISTS x. EXISTS y. (Q(x,y) AND Q(y,z))))",
            "(P(x) AND NOT (EXISTS y. EXISTS z. PREVIOUS ((NOT R(z)) SINCE (Q(x,y) AND Q(y,z)))))",
            "(P(x) AND (EXISTS z. EXISTS y. ((NOT R(z)) SINCE (Q(x,y) AND Q(y,z)))))",
            "(R(w) AND NOT (EXISTS x. EXISTS y. PREVIOUS ((NOT P(y)) SINCE Q(x,y))))",
        ][..],
    )
    .prop_map(str::to_string)
}

fn trace() -> impl Strategy<Value = Vec<RefFoTimePoint>> {
    trace_of(10)
}

/// Traces of fewer than `len` time points.
fn trace_of(len: usize) -> impl Strategy<Value = Vec<RefFoTimePoint>> {
    let event = prop_oneof![
        (1i64..4).prop_map(|a| ("P".to_string(), vec![Value::Int(a)])),
        (1i64..4, 1i64..4).prop_map(|(a, b)| ("Q".to_string(), vec![Value::Int(a), Value::Int(b)])),
        (1i64..4).prop_map(|a| ("R".to_string(), vec![Value::Int(a)])),
    ];
    prop::collection::vec((0i64..3, prop::collection::vec(event, 0..4)), 0..len).prop_map(|steps| {
        let mut ts = 0;
        steps
            .into_iter()
            .map(|(d, evs)| {
                ts += d;
                (ts, evs)
            })
            .collect()
    })
}

/// A formula as `rvmon monpoly` compiles it: normalised, with MonPoly's rewriting.
struct Setup {
    text: String,
    f: rvmon_logic::Formula,
    vars: Vec<String>,
    analyzed: rvmon_logic::Formula,
    sig: Signature,
}

impl Setup {
    fn new(text: &str) -> Setup {
        let f = parse_formula("f", text).unwrap();
        Setup {
            vars: free_vars(&f),
            analyzed: analyzed_formula(&f),
            sig: Signature::parse("sig", SIG).unwrap(),
            text: text.to_string(),
            f,
        }
    }

    /// The plan, or `None` outside the monitorable fragment.
    fn plan(&self, interner: &mut Interner) -> Option<rvmon_fo::Plan> {
        self.plan_of(&self.analyzed, interner)
    }

    /// The plan of `analyzed` (the analysed formula, or a rewriting of it).
    fn plan_of(
        &self,
        analyzed: &rvmon_logic::Formula,
        interner: &mut Interner,
    ) -> Option<rvmon_fo::Plan> {
        compile(analyzed, &self.vars, &self.sig, interner, "f", &self.text).ok()
    }
}

/// An engine for `plan`; `wait_always` makes small traces exercise waiting for consumers,
/// reducing waiting operands and joins deferring their output (tiny states and budgets).
fn engine_for(plan: rvmon_fo::Plan, wait_always: bool) -> FoEngine {
    let mut e = FoEngine::new(plan);
    if wait_always {
        e.set_small_state(0);
        e.set_join_budget(0);
        // And a batch with any join output makes the rest go one time point at a time.
        e.set_heavy_joins(0);
    }
    e
}

/// Answers as comparable values: (time point, timestamp, sorted tuples).
type Answers = Vec<(u64, i64, std::collections::BTreeSet<Vec<OrdValue>>)>;

fn comparable(answers: Vec<rvmon_fo::Answer>) -> Answers {
    answers
        .into_iter()
        .map(|a| {
            (
                a.tp,
                a.ts,
                a.rel
                    .iter()
                    .map(|t| t.iter().map(|&v| OrdValue(v)).collect())
                    .collect(),
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// `>save_state<`: an engine saved after any time point and restored (for the plan
    /// compiled again) answers as the engine that was never interrupted. Here it is saved and
    /// restored after every time point, so every cut is checked.
    #[test]
    fn a_restored_engine_goes_on_as_the_uninterrupted_one(
        text in prop_oneof![
            4 => formula(),
            1 => versioned_projection(),
            1 => versioned_guard()
        ],
        tr in trace(),
        wait_always in any::<bool>()
    ) {
        let setup = Setup::new(&text);
        let mut interner = Interner::new();
        let Some(plan) = setup.plan(&mut interner) else {
            return Ok(()); // outside the monitorable fragment
        };
        let has_future = plan.has_future();
        let (mut whole, mut cut) = (engine_for(plan.clone(), wait_always), engine_for(plan, wait_always));
        let (mut expected, mut got) = (Vec::new(), Vec::new());
        for (i, step) in tr.iter().enumerate() {
            let tp = time_point(i, step, &mut interner);
            whole.step(&tp, &mut interner, &mut expected).unwrap();
            cut.step(&tp, &mut interner, &mut got).unwrap();
            let saved = cut.save();
            let plan = setup.plan(&mut interner).unwrap();
            cut = FoEngine::restore(plan, &saved).unwrap();
            if wait_always {
                cut.set_small_state(0);
                cut.set_join_budget(0);
            }
        }
        if has_future {
            whole.close(&mut interner, &mut expected).unwrap();
            cut.close(&mut interner, &mut got).unwrap();
        }
        prop_assert_eq!(comparable(got), comparable(expected), "{}", text);
    }

    #[test]
    fn engine_matches_reference(
        text in formula(), tr in trace(), wait_always in any::<bool>(), batch in 1usize..5
    ) {
        matches_reference(&text, &tr, wait_always, batch, false)?;
    }

    /// `rvmon check` compiles the formula with conjuncts decided at once joined before
    /// conjuncts that wait for the future (`order_conjuncts`), and comparisons pushed into
    /// the operators that bind their variables (`push_comparisons`); the answers are the same.
    #[test]
    fn ordered_conjuncts_match_reference(
        text in formula(), tr in trace(), wait_always in any::<bool>(), batch in 1usize..5
    ) {
        matches_reference(&text, &tr, wait_always, batch, true)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Versioned states from which tuples are removed, on longer traces and larger batches: a
    /// reader that waits for a future operator tests positions whose removals must still be
    /// visible (see `versioned_since`).
    #[test]
    fn versioned_states_match_reference(
        text in prop_oneof![
            versioned_since(),
            versioned_exists(),
            anti_exists(),
            swapped_exists(),
            versioned_projection(),
            versioned_guard(),
            nested_exists()
        ],
        tr in trace_of(30),
        batch in 1usize..12
    ) {
        matches_reference(&text, &tr, false, batch, false)?;
    }

    /// Joins that wait, over nodes shared under other names (see `renamed_under_a_wait`),
    /// with waiting operands reduced whatever their size (`wait_always`).
    #[test]
    fn renamed_nodes_under_a_wait_match_reference(
        text in renamed_under_a_wait(),
        tr in trace_of(20),
        wait_always in any::<bool>(),
        batch in 1usize..8
    ) {
        matches_reference(&text, &tr, wait_always, batch, false)?;
    }
}

/// The shapes `anti_exists` draws compile to an anti-exists-join, so that the property test
/// above exercises it (the analysed formula is what the engine runs).
#[test]
fn anti_exists_shapes_compile_to_an_anti_exists_join() {
    use rvmon_fo::compile::NodeKind;
    let mut interner = Interner::new();
    for a in ["P(x)", "(NEXT P(x))", "(P(x) AND ONCE R(x))"] {
        for b in [
            "Q(x,y)",
            "((NOT R(y)) SINCE Q(x,y))",
            "(PREVIOUS ((NOT P(y)) SINCE Q(x,y)))",
        ] {
            for c in ["P(y)", "(ONCE Q(y,x))", "((NOT R(x)) SINCE Q(x,y))"] {
                let text = format!("({a} AND NOT (EXISTS y. ({b} AND {c})))");
                let plan = Setup::new(&text).plan(&mut interner).expect("monitorable");
                let fused = plan
                    .nodes
                    .iter()
                    .any(|n| matches!(n.kind, NodeKind::ExistsJoin { negated: true, .. }));
                assert!(fused, "{text}: not an anti-exists-join");
            }
        }
    }
    // A join that nothing else reads is made by the anti-exists-join itself.
    for a in [
        "(P(x) AND Q(x,z))",
        "(P(x) AND ONCE Q(x,z))",
        "(P(x) AND ONCE R(x))",
    ] {
        let text = format!("({a} AND NOT (EXISTS y. (Q(x,y) AND P(y))))");
        let plan = Setup::new(&text).plan(&mut interner).expect("monitorable");
        let fused = plan.nodes.iter().any(|n| {
            matches!(
                n.kind,
                NodeKind::ExistsJoin {
                    negated: true,
                    over: Some(_),
                    ..
                }
            )
        });
        assert!(fused, "{text}: the join is not fused");
    }
    // The witnesses are looked up by the join's left operand (`z`, column 0 of the pair (z, x)),
    // whichever of `b` and `c` is written first: the shapes `swapped_exists` draws.
    for (b, c) in [("Q(x,y)", "Q(z,y)"), ("Q(z,y)", "Q(x,y)")] {
        let text = format!("((P(z) AND ONCE Q(z,x)) AND NOT (EXISTS y. ({b} AND {c})))");
        let plan = Setup::new(&text).plan(&mut interner).expect("monitorable");
        let keyed_by_left = plan.nodes.iter().any(|n| match &n.kind {
            NodeKind::ExistsJoin {
                shared,
                over: Some(_),
                ..
            } => shared.iter().all(|&(col, _)| col == 0),
            _ => false,
        });
        assert!(
            keyed_by_left,
            "{text}: not keyed by the join's left operand"
        );
    }
    // A test that is not a relation (`y > x`) is no probe: the general anti-join.
    let text = "(P(x) AND NOT (EXISTS y. (Q(x,y) AND y > x)))";
    let plan = Setup::new(text).plan(&mut interner).expect("monitorable");
    assert!(!plan
        .nodes
        .iter()
        .any(|n| matches!(n.kind, NodeKind::ExistsJoin { .. })));
}

/// A join that waits for a future operand bounds its other operand by what it finds below
/// the late one, matching columns by name; below it, a node shared under other names
/// (`Q(y,x)`, one node with `Q(x,y)`) names its columns differently, and must not be matched.
fn renamed_under_a_wait() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["Q(x,y)", "(ONCE Q(x,y))", "(P(x) AND Q(x,y))"][..]),
        prop::sample::select(&["Q(y,x)", "(PREVIOUS Q(y,x))"][..]),
        interval(true),
    )
        .prop_map(|(a, b, i)| format!("({a} AND ({b} AND EVENTUALLY{i} P(x)))"))
}

/// Subformulas that differ only in their variables' names compile to one node, which the
/// property tests then exercise (`swapped_exists` draws `Q(x,y)` and `Q(z,y)` as witness and
/// test), and a node read under other names says so.
#[test]
fn renamed_copies_compile_to_one_node() {
    use rvmon_fo::compile::NodeKind;
    let mut interner = Interner::new();
    let count = |plan: &rvmon_fo::Plan, f: &dyn Fn(&NodeKind) -> bool| {
        plan.nodes.iter().filter(|n| f(&n.kind)).count()
    };
    let text = "((P(z) AND ONCE Q(z,x)) AND NOT (EXISTS y. (Q(x,y) AND Q(z,y))))";
    let plan = Setup::new(text).plan(&mut interner).expect("monitorable");
    // `Q(z,x)`, `Q(x,y)` and `Q(z,y)`: one scan.
    assert_eq!(
        count(&plan, &|k| matches!(k, NodeKind::Pred { arity: 2, .. })),
        1
    );
    let one_state = plan.nodes.iter().any(|n| match &n.kind {
        NodeKind::ExistsJoin { r, s, .. } => r == s,
        _ => false,
    });
    assert!(one_state, "{text}: witness and test are not one state");
    assert!(plan.nodes.iter().any(|n| n.renamed));
    // Filters name their columns themselves: `x < y` over (x, y) and over (y, x) differ.
    let text = "((ONCE Q(x,y)) AND x < y) OR ((ONCE Q(y,x)) AND x < y)";
    let plan = Setup::new(text).plan(&mut interner).expect("monitorable");
    assert_eq!(count(&plan, &|k| matches!(k, NodeKind::Since { .. })), 1);
    assert_eq!(count(&plan, &|k| matches!(k, NodeKind::Filter { .. })), 2);
}

/// A state shared up to renaming that an anti-exists-join both walks (its left operand) and
/// tests (`ONCE R(x)` and `ONCE R(y)`) is not probed in place: the join walks its tuples, not
/// the markers a probed state hands out (those made it read a column of an empty tuple).
#[test]
fn a_state_walked_and_tested_by_one_exists_join_hands_out_its_tuples() {
    let text = "(EVENTUALLY[0,0] ((ONCE[0,*) R(x)) AND NOT (EXISTS y. (Q(x,y) AND (ONCE R(y))))))";
    let v = |k: i64| Value::Int(k);
    let trace: Vec<RefFoTimePoint> = vec![
        (0, vec![]),
        (1, vec![("R".into(), vec![v(1)])]),
        (
            2,
            vec![("Q".into(), vec![v(1), v(1)]), ("R".into(), vec![v(2)])],
        ),
        (3, vec![("Q".into(), vec![v(2), v(1)])]),
        (4, vec![]),
    ];
    for batch in [1, 2, 5] {
        matches_reference(text, &trace, false, batch, false).unwrap();
    }
}

/// The engine fed `tr` in batches of `batch` time points answers as the reference evaluator
/// (with the analysed formula's conjuncts reordered as `rvmon check` does when `ordered`).
fn matches_reference(
    text: &str,
    tr: &[RefFoTimePoint],
    wait_always: bool,
    batch: usize,
    ordered: bool,
) -> Result<(), TestCaseError> {
    let setup = Setup::new(text);
    let mut interner = Interner::new();
    let analyzed = if ordered {
        push_comparisons(&order_conjuncts(&setup.analyzed))
    } else {
        setup.analyzed.clone()
    };
    let Some(plan) = setup.plan_of(&analyzed, &mut interner) else {
        // Ordering moves only conjuncts whose variables are bound already, so it keeps a
        // monitorable formula monitorable.
        prop_assert!(
            setup.plan(&mut interner).is_none(),
            "ordered, no longer compiles: {}",
            text
        );
        return Ok(()); // outside the monitorable fragment
    };
    let order = plan.output_order.clone();
    let has_future = plan.has_future();
    let mut engine = engine_for(plan, wait_always);
    let mut answers = Vec::new();
    // Fed in batches of `batch` time points (`step_batch`), which must change nothing.
    let tps: Vec<TimePoint> = tr
        .iter()
        .enumerate()
        .map(|(i, step)| time_point(i, step, &mut interner))
        .collect();
    for chunk in tps.chunks(batch) {
        engine
            .step_batch(chunk, &mut interner, &mut answers)
            .unwrap();
    }
    if has_future {
        engine.close(&mut interner, &mut answers).unwrap();
    }
    let mut closed = tr.to_vec();
    closed.push((rvmon_fo::engine::CLOSING_TS, vec![]));
    let expected = evaluate_fo(&setup.f, &closed, &mut interner);
    prop_assert_eq!(
        answers.len(),
        tr.len(),
        "every time point answered: {}",
        text
    );
    for a in answers {
        let got: std::collections::BTreeSet<Vec<OrdValue>> = a
            .rel
            .iter()
            .map(|t| order.iter().map(|&c| OrdValue(t[c])).collect())
            .collect();
        prop_assert_eq!(
            &got,
            &expected[a.tp as usize],
            "{} at time point {}",
            text,
            a.tp
        );
    }
    Ok(())
}

/// A `SINCE` whose left operand removes tuples, tested by its consumer, changes at most time
/// points, yet the engine makes one pass per batch: the consumer tests the state as it was at
/// each position ([`FoEngine::probed`]) instead of holding a snapshot that each change would
/// wait for (which made a pass per time point).
#[test]
fn a_tested_since_state_that_changes_costs_no_pass_per_time_point() {
    for text in [
        "(Q(x,y) AND NOT ((NOT R(x)) SINCE P(x)))",
        "(Q(x,y) AND ((NOT R(x)) SINCE P(x)))",
        "(Q(x,y) AND NOT PREVIOUS ((NOT R(x)) SINCE P(x)))",
        // Joins that add the state's columns, or whose left operand it is.
        "(P(x) AND ((NOT R(x)) SINCE Q(x,y)))",
        "(((NOT R(x)) SINCE Q(x,y)) AND P(x))",
        // Projections of the state, tested through its index (with `PREVIOUS` fused in).
        "(P(x) AND NOT EXISTS y. PREVIOUS ((NOT R(y)) SINCE Q(x,y)))",
        "(P(x) AND EXISTS y. ((NOT R(y)) SINCE Q(x,y)))",
        // One state shared up to renaming, read through a projection and tested by an
        // anti-join (DejaVu's locks-basic: `EXISTS s. PREVIOUS held(s,l)` and `PREVIOUS
        // held(t,l)`); it was held as a snapshot and projected in full at every position.
        "((P(x) AND NOT EXISTS y. PREVIOUS ((NOT R(y)) SINCE Q(x,y))) \
         OR (EXISTS z. (Q(x,z) AND NOT PREVIOUS ((NOT R(z)) SINCE Q(x,z)))))",
        // A state that a guard tests.
        "(Q(x,y) AND ((NOT (P(x) AND NOT ((NOT R(y)) SINCE Q(x,y)))) SINCE Q(x,y)))",
    ] {
        let (answered, passes) = passes_over(text, None, |i| {
            let v = |k: usize| Value::Int(k as i64);
            let mut events = vec![("P".to_string(), vec![v(i)])];
            if i % 3 == 0 {
                events.push(("R".into(), vec![v(i.saturating_sub(5))]));
                events.push(("Q".into(), vec![v(i.saturating_sub(2)), v(1)]));
            }
            events
        });
        assert_eq!(answered, 640);
        assert!(passes <= 20, "{text}: {passes} passes");
    }
}

/// Runs the plan of `text` over 640 time points (timestamp = position) with the events
/// `events` gives for each, in batches of 64, every shared state larger than `small_state`
/// (if given) waiting rather than copied; returns how many time points were answered and the
/// engine's passes.
fn passes_over(
    text: &str,
    small_state: Option<usize>,
    events: impl Fn(usize) -> Vec<(String, Vec<Value>)>,
) -> (usize, u64) {
    let setup = Setup::new(text);
    let mut interner = Interner::new();
    let plan = setup.plan(&mut interner).expect("monitorable");
    let mut engine = FoEngine::new(plan);
    if let Some(small) = small_state {
        engine.set_small_state(small);
    }
    let mut answers = Vec::new();
    let tps: Vec<TimePoint> = (0..640usize)
        .map(|i| time_point(i, &(i as i64, events(i)), &mut interner))
        .collect();
    for batch in tps.chunks(64) {
        engine
            .step_batch(batch, &mut interner, &mut answers)
            .unwrap();
    }
    (answers.len(), engine.passes())
}

/// A bounded window whose tuples recur (paper 04's `ONCE[1d,2d] alive(c)` and
/// `EVENTUALLY[10m,20m] net(c)`: a hundred computers, each alive and on the network every few
/// minutes) takes a witness at almost every position but changes its output at few. Only a
/// change makes the window wait for the snapshot its consumer still holds, so a batch costs a
/// few passes, not one per position. Here the consumer of the `ONCE` window is a join that
/// waits for an `EVENTUALLY`, which holds a snapshot for each position it waits for, and every
/// shared state waits rather than being copied.
#[test]
fn recurring_tuples_in_a_bounded_window_cost_no_pass_per_time_point() {
    for text in [
        "((P(x) AND (EVENTUALLY[1,4] R(x))) AND (ONCE[2,8] R(x)))",
        "((P(x) AND (EVENTUALLY[1,4] R(x))) AND NOT (ONCE[0,8] Q(x,x)))",
        "(P(x) AND (EVENTUALLY[2,6] R(x)))",
    ] {
        let (answered, passes) = passes_over(text, Some(0), |i| {
            let v = Value::Int((i % 3) as i64);
            vec![
                ("P".to_string(), vec![v]),
                ("R".to_string(), vec![v]),
                ("Q".to_string(), vec![v, v]),
            ]
        });
        assert!(answered >= 630, "{text}: {answered} answers");
        assert!(passes <= 40, "{text}: {passes} passes");
    }
}

/// Memory that follows what a bounded formula must remember, not the trace's length: the
/// engine keeps the timestamps of a few time points only, for `UNTIL` as for the other
/// operators (a general `UNTIL` once kept every timestamp of the run).
#[test]
fn bounded_formulas_keep_a_bounded_timeline() {
    for text in [
        "(P(x) UNTIL[0,5] Q(x,x))",
        "(EVENTUALLY[0,3] P(x))",
        "(P(x) AND NOT (R(x) SINCE[0,4] P(x)))",
        "(NEXT[0,2] (PREVIOUS P(x)))",
    ] {
        let setup = Setup::new(text);
        let mut interner = Interner::new();
        let plan = setup.plan(&mut interner).expect("monitorable");
        let mut engine = FoEngine::new(plan);
        let mut answers = Vec::new();
        let mut most = 0;
        for i in 0..2000usize {
            let x = Value::Int((i % 3) as i64);
            let step: RefFoTimePoint = (
                i as i64,
                vec![("P".into(), vec![x]), ("Q".into(), vec![x, x])],
            );
            let tp = time_point(i, &step, &mut interner);
            engine.step(&tp, &mut interner, &mut answers).unwrap();
            most = most.max(engine.held_time_points());
        }
        assert!(most < 20, "{text}: {most} time points held");
    }
}

/// `formula`'s constants as strings (its predicates then take strings).
fn with_string_constants(formula: &str) -> String {
    formula
        .replace("P(2)", "P(\"2\")")
        .replace("Q(x,1)", "Q(x,\"1\")")
        .replace("x = 2", "x = \"2\"")
}

/// An engine over string values, with its own interner, and the answers it gave so far as
/// text (rendered at once: an answer's ids may be freed by the next collection).
struct OverStrings {
    engine: FoEngine,
    interner: Interner,
    answers: Vec<(u64, i64, std::collections::BTreeSet<Vec<String>>)>,
}

impl OverStrings {
    fn new(text: &str, wait_always: bool) -> Option<OverStrings> {
        let f = parse_formula("f", text).unwrap();
        let sig = Signature::parse("sig", "P(string) Q(string,string) R(string)").unwrap();
        let mut interner = Interner::new();
        let plan = compile(
            &analyzed_formula(&f),
            &free_vars(&f),
            &sig,
            &mut interner,
            "f",
            text,
        )
        .ok()?;
        interner.pin_all();
        Some(OverStrings {
            engine: engine_for(plan, wait_always),
            interner,
            answers: Vec::new(),
        })
    }

    fn step(&mut self, i: usize, (ts, events): &RefFoTimePoint) {
        let events = events
            .iter()
            .map(|(name, vals)| {
                let vals = vals
                    .iter()
                    .map(|v| match v {
                        Value::Int(a) => Value::Str(self.interner.intern(&a.to_string())),
                        other => *other,
                    })
                    .collect();
                (name.clone(), vals)
            })
            .collect();
        let tp = time_point(i, &(*ts, events), &mut self.interner);
        let mut answers = Vec::new();
        self.engine
            .step(&tp, &mut self.interner, &mut answers)
            .unwrap();
        for a in answers {
            let rel = a
                .rel
                .iter()
                .map(|t| {
                    t.iter()
                        .map(|&v| rvmon_fo::rel::value_text(&v, &self.interner))
                        .collect()
                })
                .collect();
            self.answers.push((a.tp, a.ts, rel));
        }
    }

    /// Frees every string the engine does not hold (a floor of 0: at every call).
    fn collect(&mut self) {
        let engine = &self.engine;
        StringCollection::new(0)
            .collect_if_due(&mut self.interner, |mark| engine.mark_strings(mark));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Freeing the interned strings no state holds, after every time point, changes no answer,
    /// although the freed ids are handed out again to the next values: an engine over string
    /// values collected so answers as the one never collected.
    #[test]
    fn freeing_the_strings_no_state_holds_changes_no_answer(
        text in formula(), tr in trace(), wait_always in any::<bool>()
    ) {
        let text = with_string_constants(&text);
        let Some(mut kept) = OverStrings::new(&text, wait_always) else {
            return Ok(()); // outside the monitorable fragment
        };
        let mut collected = OverStrings::new(&text, wait_always).expect("compiled once");
        for (i, step) in tr.iter().enumerate() {
            kept.step(i, step);
            collected.step(i, step);
            collected.collect();
        }
        prop_assert_eq!(&collected.answers, &kept.answers, "{}", text);
    }
}

/// The case the bounds of a waiting join got wrong when they matched the columns of a node
/// shared under other names by name: at time point 1 the early tuple (1,2) was dropped
/// because `Q(x,y)` (the node's own names) did not hold, where `Q(y,x)` did.
#[test]
fn a_waiting_join_is_not_bounded_through_a_renamed_node() {
    let q = |a, b| ("Q".to_string(), vec![Value::Int(a), Value::Int(b)]);
    let p = |a| ("P".to_string(), vec![Value::Int(a)]);
    let tr: Vec<RefFoTimePoint> = vec![
        (0, vec![q(1, 2)]),
        (1, vec![q(2, 1)]),
        (2, vec![p(1)]),
        (3, vec![p(2)]),
        (5, vec![]),
        (8, vec![]),
    ];
    let text = "((PREVIOUS Q(x,y)) AND (Q(y,x) AND EVENTUALLY[0,2] P(x)))";
    let plan = Setup::new(text).plan(&mut Interner::new()).unwrap();
    assert!(plan.nodes.iter().any(|n| n.renamed), "{plan:#?}");
    for batch in 1..4 {
        matches_reference(text, &tr, true, batch, false).unwrap();
    }
}

/// An assignment over a node shared under other names evaluates its term with its own names
/// for the columns: in the second disjunct `x` is column 1 of the shared `ONCE Q(x,y)`.
#[test]
fn an_assignment_over_a_renamed_node_uses_its_own_names() {
    let q = |a, b| ("Q".to_string(), vec![Value::Int(a), Value::Int(b)]);
    let tr: Vec<RefFoTimePoint> = vec![(0, vec![q(1, 2)]), (1, vec![q(3, 1)]), (2, vec![])];
    let text = "((ONCE Q(x,y)) AND z = x) OR ((ONCE Q(y,x)) AND z = x)";
    let plan = Setup::new(text).plan(&mut Interner::new()).unwrap();
    assert!(plan.nodes.iter().any(|n| n.renamed), "{plan:#?}");
    for batch in 1..3 {
        matches_reference(text, &tr, false, batch, false).unwrap();
    }
}
