//! `topo algo show`.

use super::Ctx;
use super::algo::ShowArgs;
use crate::error::Error;

pub fn run(_a: &ShowArgs, _ctx: &mut Ctx) -> Result<i32, Error> {
    Err(Error::Usage("not yet".into()))
}
