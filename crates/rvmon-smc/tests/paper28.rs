//! Paper 28's examples (note E §6): Craps and Herman's self-stabilising protocol, exact
//! probabilities on the true models, PESTIM's and the SPRT's estimates by simulation, and
//! AAlergia's learned models (AALpy's recorded output).

use rvmon_core::rng::SplitMix;
use rvmon_smc::chain::Chain;
use rvmon_smc::check::{exact, pestim, pestim_samples, sprt, Hypothesis};
use rvmon_smc::{alergia, prop};

fn craps() -> Chain {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/smc/craps.dot");
    Chain::from_dot("craps.dot", &std::fs::read_to_string(path).unwrap()).unwrap()
}

fn p(chain: &Chain, text: &str) -> f64 {
    exact(chain, &prop::parse(text).unwrap())
}

#[test]
fn craps_exactly() {
    let c = craps();
    assert!((p(&c, "F won") - 244.0 / 495.0).abs() < 1e-12);
    assert!((p(&c, "F lost") - 251.0 / 495.0).abs() < 1e-12);
    // `true U^2 won` (the proceedings print 0.3).
    assert!((p(&c, "F<=2 won") - 97.0 / 324.0).abs() < 1e-12);
    assert!((p(&c, "G !won") - 251.0 / 495.0).abs() < 1e-12);
    assert!((p(&c, "X won") - 8.0 / 36.0).abs() < 1e-12);
    assert!((p(&c, "!lost U won") - 244.0 / 495.0).abs() < 1e-12);
}

/// Herman's protocol with `n` processes (odd) in a ring: a token where a process's bit equals
/// its left neighbour's; each step, a process with a token flips a fair coin for its bit,
/// the others copy their left neighbour. From the state with all bits equal (n tokens).
/// Labels: `stable` (one token) and `token<n>` (n tokens, all-equal bits).
fn herman(n: u32) -> Chain {
    let size = 1usize << n;
    let tokens = |x: usize| {
        (0..n)
            .filter(|&i| (x >> i) & 1 == (x >> ((i + n - 1) % n)) & 1)
            .count()
    };
    let mut trans = vec![];
    let mut labels = vec![];
    for x in 0..size {
        let t = tokens(x);
        labels.push(if t == 1 {
            "stable".to_string()
        } else if t == n as usize {
            format!("token{n}")
        } else {
            format!("tokens{t}")
        });
        // The processes with a token choose; the others copy.
        let holders: Vec<u32> = (0..n)
            .filter(|&i| (x >> i) & 1 == (x >> ((i + n - 1) % n)) & 1)
            .collect();
        let mut out: std::collections::BTreeMap<usize, f64> = Default::default();
        for coins in 0..(1usize << holders.len()) {
            let mut y = 0;
            for i in 0..n {
                let bit = match holders.iter().position(|&h| h == i) {
                    Some(j) => (coins >> j) & 1,
                    None => (x >> ((i + n - 1) % n)) & 1,
                };
                y |= bit << i;
            }
            *out.entry(y).or_default() += 1.0 / (1u64 << holders.len()) as f64;
        }
        trans.push(out.into_iter().collect());
    }
    Chain {
        labels,
        initial: 0,
        trans,
    }
}

/// Note E's table (ψ_N^L = Pr(tokenN U^L stable), φ^L = Pr(true U^L stable)).
#[test]
fn herman_exactly() {
    let h7 = herman(7);
    for (l, phi) in [
        (1, 0.109375),
        (10, 0.875710),
        (30, 0.998083),
        (65, 0.999999),
    ] {
        assert!(
            (p(&h7, &format!("F<={l} stable")) - phi).abs() < 5e-7,
            "N=7 L={l}"
        );
    }
    for (l, psi) in [(1, 0.109375), (30, 0.111111), (65, 0.111111)] {
        assert!(
            (p(&h7, &format!("token7 U<={l} stable")) - psi).abs() < 5e-7,
            "N=7 L={l}"
        );
    }
    let h11 = herman(11);
    for (l, phi) in [(1, 0.010742), (5, 0.274465), (10, 0.544796), (20, 0.807916)] {
        assert!(
            (p(&h11, &format!("F<={l} stable")) - phi).abs() < 5e-7,
            "N=11 L={l}"
        );
    }
    assert!((p(&h11, "token11 U<=30 stable") - 0.010753).abs() < 5e-7);
    // Unbounded: stabilisation is certain.
    assert!((p(&h7, "F stable") - 1.0).abs() < 1e-9);
}

/// PESTIM: the paper's sample counts, and the estimate within δ (fixed seed).
#[test]
fn pestim_within_delta() {
    assert_eq!(pestim_samples(1e-2, 1e-2), 211_933);
    assert_eq!(pestim_samples(5e-2, 5e-3), 9_587);
    let c = craps();
    let f = prop::parse("F won").unwrap();
    let (estimate, m) = pestim(&c, &f, 1e-2, 1e-2, 28);
    assert_eq!(m, 211_933);
    assert!((estimate - 244.0 / 495.0).abs() <= 1e-2, "{estimate}");
    let h = herman(7);
    let psi = prop::parse("token7 U<=30 stable").unwrap();
    let (estimate, _) = pestim(&h, &psi, 5e-2, 5e-3, 7);
    assert!((estimate - 0.111111).abs() <= 5e-2, "{estimate}");
}

/// The SPRT, the rule the right way round: Herman N=7, ψ^1 = 7/64 = 0.109375.
#[test]
fn sprt_decides_each_side() {
    let h = herman(7);
    let psi = prop::parse("token7 U<=1 stable").unwrap();
    let (d, m, _) = sprt(&h, &psi, (0.10, 0.005, 0.01, 0.01), 1, 10_000_000).unwrap();
    assert_eq!(d, Hypothesis::AtLeast, "p = 0.109 ≥ 0.105 after {m} runs");
    let (d, _, _) = sprt(&h, &psi, (0.12, 0.005, 0.01, 0.01), 1, 10_000_000).unwrap();
    assert_eq!(d, Hypothesis::AtMost, "p = 0.109 ≤ 0.115");
}

/// AAlergia on the note's toy data: 5 × `s a` and 5 × `s b a a a` (checked with AALpy).
#[test]
fn alergia_toy() {
    let mut data = vec![];
    for _ in 0..5 {
        data.push(vec!["s".to_string(), "a".to_string()]);
        data.push(["s", "b", "a", "a", "a"].map(String::from).to_vec());
    }
    let chain = alergia::learn(&data, 0.05).unwrap();
    // Ten choices of one in two, the rest certain; one free parameter.
    let (ll, k) = alergia::likelihood(&chain, &data).unwrap();
    assert!((ll - 10.0 * 0.5f64.ln()).abs() < 1e-12);
    assert_eq!(k, 1);
    assert_eq!(
        chain.canonical(),
        [
            "state 0 s",
            "state 1 a",
            "state 2 b",
            "trans 0 1 0.500000",
            "trans 0 2 0.500000",
            "trans 1 1 1.000000",
            "trans 2 1 1.000000"
        ]
    );
}

/// AALpy's recorded output on the peers' 500 sequences, line for line.
#[test]
fn alergia_as_aalpy_recorded() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/peers/examples/aalpy"
    );
    let Ok(text) = std::fs::read_to_string(format!("{dir}/mc_seqs.txt")) else {
        return rvmon_testkit::skip(
            "smc: AALpy's Alergia output",
            rvmon_testkit::Needs::Shared,
            "../shared/peers is not there",
        );
    };
    let data: Vec<Vec<String>> = text
        .lines()
        .map(|l| l.split_whitespace().map(String::from).collect::<Vec<_>>())
        .filter(|t: &Vec<String>| !t.is_empty() && !t[0].starts_with('#'))
        .collect();
    let chain = alergia::learn(&data, 0.05).unwrap();
    let recorded = std::fs::read_to_string(format!("{dir}/out/mc.alergia.txt")).unwrap();
    let expected: Vec<&str> = recorded
        .lines()
        .filter(|l| l.starts_with("state") || l.starts_with("trans"))
        .collect();
    assert_eq!(chain.canonical(), expected);
}

/// Learned from 5,000 runs of the true Craps model, the chain's `F won` is within 0.05 of
/// the truth (AALpy learns 9 states from such data, note E §6.5).
#[test]
fn learned_craps_estimates() {
    let c = craps();
    let mut rng = SplitMix(5);
    let data: Vec<Vec<String>> = (0..5000)
        .map(|_| {
            let len = 2 + rng.below(9);
            c.trace(len, &mut rng)
                .into_iter()
                .map(String::from)
                .collect()
        })
        .collect();
    let learned = alergia::learn(&data, 0.05).unwrap();
    let won = p(&learned, "F won");
    assert!(
        (won - 244.0 / 495.0).abs() < 0.05,
        "{won} on {} states",
        learned.states()
    );
}

/// The BIC-style choice of AAlergia's parameter on runs of Craps: a model as good as the true
/// one's size, with `F won` within 0.05.
#[test]
fn bic_chooses_a_parameter() {
    let c = craps();
    let mut rng = SplitMix(12);
    let data: Vec<Vec<String>> = (0..3000)
        .map(|_| {
            let len = 2 + rng.below(9);
            c.trace(len, &mut rng)
                .into_iter()
                .map(String::from)
                .collect()
        })
        .collect();
    let (eps, score, chain) = alergia::choose_eps(&data).unwrap();
    assert!(eps > 0.0 && eps <= 2.0 && score < 0.0);
    assert_eq!(chain.states(), 9, "eps {eps}");
    assert!((p(&chain, "F won") - 244.0 / 495.0).abs() < 0.05);
    // No other parameter of the grid scores higher.
    for e in [1e-6, 1e-3, 0.05, 1.0, 2.0] {
        let other = alergia::learn(&data, e).unwrap();
        let (ll, k) = alergia::likelihood(&other, &data).unwrap();
        let steps: usize = data.iter().map(|s| s.len() - 1).sum();
        assert!(
            ll - 0.5 * k as f64 * (steps as f64).ln() <= score + 1e-9,
            "eps {e}"
        );
    }
}
