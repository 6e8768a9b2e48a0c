//! `src/integrators/explicit_rk/`: the tableaus, and the article's explicit Euler tables.

mod article_tables;
mod tableaus;
mod verner;
