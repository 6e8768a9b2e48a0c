//! `src/integrators/explicit_rk/`: the tableaus, the article's explicit Euler tables, and the
//! stages' sums.

mod article_tables;
mod stage_sums;
mod tableaus;
mod verner;
