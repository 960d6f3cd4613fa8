//! Statistical model checking on learned models (paper 28): AAlergia learns a deterministic
//! labelled Markov chain from sampled sequences ([`alergia`]); a property's probability is
//! computed on a chain exactly ([`check::exact`]) or estimated by simulation with PESTIM's
//! sample count or Wald's SPRT ([`check`]); runs can be projected onto the propositions a
//! property reads before learning ([`project`], paper 28's abstraction).

pub mod alergia;
pub mod chain;
pub mod check;
pub mod project;
pub mod prop;
