//! Statistical model checking on learned models (paper 28): AAlergia learns a deterministic
//! labelled Markov chain from sampled sequences ([`alergia`]); a property's probability is
//! computed on a chain exactly ([`check::exact`]) or estimated by simulation with PESTIM's
//! sample count or Wald's SPRT ([`check`]).

pub mod alergia;
pub mod chain;
pub mod check;
pub mod prop;
