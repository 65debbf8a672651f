//! A thread block's steps as the runtime runs them: the parser folds `nop`s into the
//! wait set of the next real step, fuses chains of `re` into one reduction, and the
//! kernel numbers the steps it publishes by a counter of its own. Programs are
//! written against XML positions; where the two numberings part, a wait is released
//! by a different step than its author meant, and this module says so.

use super::finding::{Finding, Kind, Place};
use super::program::{Buffer, Dep, Gpu, Slot, StepKind, ThreadBlock};
use super::runtime::Runtime;

/// One operation of a thread block as the interpreter runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    /// XML positions of the first and the last step folded into it.
    pub first: usize,
    pub last: usize,
    pub kind: StepKind,
    pub src: Slot,
    pub dst: Slot,
    pub count: u32,
    /// For a (fused) `re`: the source offset of each operand, in `src.buf`.
    pub reduce_srcs: Vec<u32>,
    /// Thread blocks and runtime step numbers waited on before the operation starts.
    pub waits: Vec<Dep>,
    /// Whether it publishes its number when done (`hasdep`).
    pub publish: bool,
    /// The number the kernel publishes for it (what other blocks' `deps` compare with).
    pub number: u32,
    pub line: u32,
}

/// The runtime's operations of every thread block of one GPU, in `gpu.tbs` order.
#[derive(Debug, Clone, Default)]
pub struct Lowered {
    pub tbs: Vec<Vec<Op>>,
}

impl Lowered {
    /// The operation whose publication releases a wait for (tb, number), in the same
    /// iteration: the first publishing operation numbered at least that. `None`: only
    /// the next iteration's publications release it.
    pub fn release(&self, gpu: &Gpu, dep: Dep) -> Option<(usize, usize)> {
        let ti = gpu.tbs.iter().position(|t| t.id == dep.tb)?;
        self.tbs[ti].iter().position(|op| op.publish && op.number >= dep.step).map(|oi| (ti, oi))
    }
}

/// Lower every thread block of a GPU; findings are the parser's refusals (the
/// dependency-chain rule) and the places where its reading departs from the XML.
pub fn lower(gpu: &Gpu, runtime: Runtime) -> (Lowered, Vec<Finding>) {
    let mut findings = Vec::new();
    let tbs = gpu.tbs.iter().map(|t| lower_tb(gpu.id, t, runtime, &mut findings)).collect();
    let lowered = Lowered { tbs };
    check_waits(gpu, &lowered, &mut findings);
    (lowered, findings)
}

fn lower_tb(gid: u32, t: &ThreadBlock, runtime: Runtime, findings: &mut Vec<Finding>) -> Vec<Op> {
    let place = |pos: usize, line: u32| Place::step(line, gid, t.id, pos as u32);
    let mut deps: Vec<Dep> = Vec::new();
    let mut taken = 0usize;
    // The last reduction a following `re` may continue: (dst buffer, dst offset, src buffer).
    let mut chain: Option<(Buffer, Option<u32>, Buffer)> = None;
    let mut reductions = 0u32;
    let mut ops: Vec<Op> = Vec::new();
    for (pos, s) in t.steps.iter().enumerate() {
        if let Some(d) = s.dep {
            deps.push(d);
        }
        if s.kind == StepKind::Nop {
            if s.dep.is_none() {
                findings.push(Finding::warning(
                    Kind::Invalid,
                    place(pos, s.line),
                    "a nop without a dependency: the runtime drops it, and the numbers of later steps shift down by one",
                ));
            }
            continue;
        }
        let mut continued = false;
        if s.kind == StepKind::Reduce {
            continued = chain == Some((s.dst.buf, s.dst.off, s.src.buf)) && s.dep.is_none();
        }
        if continued {
            let op = ops.last_mut().expect("a continued reduction follows one");
            if op.count != s.count {
                findings.push(Finding::warning(
                    Kind::Invalid,
                    place(pos, s.line),
                    format!("fused into the reduction of step {} with cnt={} where that one has cnt={}: the fused reduction uses this step's count for every operand", op.first, s.count, op.count),
                ));
            }
            op.src = s.src;
            op.count = s.count;
            op.last = pos;
            op.publish = s.has_dep;
        } else {
            let waits = deps[taken..].to_vec();
            if !waits.is_empty() && s.dep.is_none() {
                findings.push(Finding::error(
                    Kind::Invalid,
                    place(pos, s.line),
                    format!("MSCCL: when there is a chain of dependencies, the last reduction must be a part of the first immediate instruction. Detected for GPU {gid}, thread block {}, and step {}. XML will be ignored.", t.id, s.s),
                ));
            }
            taken = deps.len();
            ops.push(Op {
                first: pos,
                last: pos,
                kind: s.kind,
                src: s.src,
                dst: s.dst,
                count: s.count,
                reduce_srcs: Vec::new(),
                waits,
                publish: s.has_dep,
                number: 0,
                line: s.line,
            });
        }
        if s.kind == StepKind::Reduce {
            let op = ops.last_mut().expect("just pushed or continued");
            op.reduce_srcs.push(s.src.off.unwrap_or(0));
            reductions += 1;
            chain = if s.has_dep || reductions == runtime.max_reduce_fusion() {
                None
            } else {
                Some((s.dst.buf, s.dst.off, s.src.buf))
            };
        } else {
            chain = None;
        }
    }
    if deps.len() > taken {
        let last = t.steps.len() - 1;
        findings.push(Finding::warning(
            Kind::Invalid,
            place(last, t.steps[last].line),
            "dependencies on nops after the last real step: no step waits for them",
        ));
    }
    // The kernel's counter: waits on n blocks add n-1, a fused reduction of n operands
    // (that moves data) adds n-1, every operation adds 1.
    let mut step = 0u32;
    for op in &mut ops {
        if !op.waits.is_empty() {
            step += op.waits.len() as u32 - 1;
        }
        if op.kind == StepKind::Reduce && op.count > 0 {
            step += op.reduce_srcs.len() as u32 - 1;
        }
        op.number = step;
        step += 1;
        let n = op.reduce_srcs.len() as u32;
        let max = runtime.max_reduce_fusion();
        if n > max + 1 {
            findings.push(Finding::error(
                Kind::Invalid,
                place(op.first, op.line),
                format!("the runtime fuses steps {}..{} into one reduction of {n} operands; the kernel's operand table holds {} (the parser stops fusing at {max} only for the first {max} re of a thread block)", op.first, op.last, max + 1),
            ));
        } else if n > max {
            findings.push(Finding::warning(
                Kind::Invalid,
                place(op.first, op.line),
                format!("the runtime fuses steps {}..{} into one reduction of {n} operands, more than MSCCL_MAX_REDUCE_FUSION ({max})", op.first, op.last),
            ));
        }
    }
    ops
}

/// Waits against what releases them at run time.
fn check_waits(gpu: &Gpu, lowered: &Lowered, findings: &mut Vec<Finding>) {
    for (ti, t) in gpu.tbs.iter().enumerate() {
        for op in &lowered.tbs[ti] {
            for &w in &op.waits {
                let Some(target_i) = gpu.tbs.iter().position(|x| x.id == w.tb) else { continue };
                let target = &gpu.tbs[target_i];
                let place = Place::step(op.line, gpu.id, t.id, op.first as u32);
                // The operation the author meant: the one the XML step `w.step` folded into.
                let meant =
                    lowered.tbs[target_i].iter().position(|o| o.first <= w.step as usize && w.step as usize <= o.last);
                let released = lowered.release(gpu, w).map(|(_, oi)| oi);
                match (meant, released) {
                    (_, None) => findings.push(Finding::error(
                        Kind::Invalid,
                        place,
                        format!("waits on step {} of tb {}, but tb {} publishes no step numbered {} or later: the wait ends only with the next loop iteration, or never", w.step, w.tb, w.tb, w.step),
                    )),
                    (Some(m), Some(r)) if m == r => {}
                    (Some(m), Some(r)) => {
                        let mo = &lowered.tbs[target_i][m];
                        let ro = &lowered.tbs[target_i][r];
                        let why = if !mo.publish {
                            format!("step {} has hasdep=\"0\" and publishes nothing", w.step)
                        } else {
                            format!("the runtime numbers that step {}", mo.number)
                        };
                        findings.push(Finding::warning(
                            Kind::Invalid,
                            place,
                            format!("waits on step {} of tb {} but {why}: the wait is released by step {} instead", w.step, target.id, ro.last),
                        ));
                    }
                    (None, Some(_)) => {
                        if w.step as usize >= target.steps.len() {
                            findings.push(Finding::error(
                                Kind::Invalid,
                                place,
                                format!("waits on step {} of tb {}, which has only {} steps", w.step, target.id, target.steps.len()),
                            ));
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::program::{Step, ThreadBlock};

    fn step(kind: StepKind, dep: Option<(u32, u32)>, has_dep: bool, src: u32) -> Step {
        Step {
            s: 0,
            kind,
            src: Slot { buf: Buffer::Scratch, off: Some(src) },
            dst: Slot { buf: Buffer::Input, off: Some(0) },
            count: 1,
            dep: dep.map(|(tb, step)| Dep { tb, step }),
            has_dep,
            line: 0,
        }
    }

    fn gpu(tbs: Vec<Vec<Step>>) -> Gpu {
        Gpu {
            id: 0,
            input_chunks: 4,
            output_chunks: 4,
            scratch_chunks: 32,
            tbs: tbs
                .into_iter()
                .enumerate()
                .map(|(i, steps)| ThreadBlock { id: i as u32, send: None, recv: None, chan: 0, steps, line: 0 })
                .collect(),
            line: 0,
        }
    }

    #[test]
    fn nops_fold_into_the_next_step_and_count_in_its_number() {
        let g = gpu(vec![
            vec![step(StepKind::Copy, None, true, 0), step(StepKind::Copy, None, true, 1)],
            vec![
                step(StepKind::Nop, Some((0, 0)), false, 0),
                step(StepKind::Copy, Some((0, 1)), true, 2),
                step(StepKind::Copy, None, false, 3),
            ],
        ]);
        let (l, f) = lower(&g, Runtime::Executor);
        assert!(f.is_empty(), "{f:?}");
        assert_eq!(l.tbs[1].len(), 2);
        assert_eq!(l.tbs[1][0].waits.len(), 2);
        assert_eq!((l.tbs[1][0].number, l.tbs[1][1].number), (1, 2));
    }

    #[test]
    fn a_nop_without_a_dependency_shifts_numbers() {
        let g = gpu(vec![
            vec![
                step(StepKind::Nop, None, false, 0),
                step(StepKind::Copy, None, true, 1),
                step(StepKind::Copy, None, true, 2),
            ],
            vec![step(StepKind::Copy, Some((0, 2)), false, 3)],
        ]);
        let (l, f) = lower(&g, Runtime::Executor);
        assert_eq!(l.tbs[0][1].number, 1);
        assert!(f.iter().any(|x| x.message.contains("drops it")));
        // Step 2 is numbered 1 at run time; the wait for "2" is released by nothing.
        assert!(f.iter().any(|x| x.is_error() && x.message.contains("publishes no step numbered 2")), "{f:?}");
    }

    #[test]
    fn the_dependency_chain_rule() {
        let g = gpu(vec![
            vec![step(StepKind::Copy, None, true, 0)],
            vec![step(StepKind::Nop, Some((0, 0)), false, 0), step(StepKind::Copy, None, false, 1)],
        ]);
        let (_, f) = lower(&g, Runtime::Executor);
        assert!(f.iter().any(|x| x.is_error() && x.message.contains("chain of dependencies")), "{f:?}");
    }

    #[test]
    fn reductions_fuse_and_the_running_total_bug_lets_chains_grow() {
        // 20 re into one destination: the first 16 fuse and break; the next 4 fuse.
        let g = gpu(vec![(0..20).map(|i| step(StepKind::Reduce, None, false, i)).collect()]);
        let (l, f) = lower(&g, Runtime::Executor);
        assert_eq!(l.tbs[0].len(), 2);
        assert_eq!(l.tbs[0][0].reduce_srcs.len(), 16);
        assert_eq!(l.tbs[0][1].number, 19);
        assert!(f.is_empty(), "{f:?}");
        // A second chain after those never breaks by length.
        let mut steps: Vec<Step> = (0..16).map(|i| step(StepKind::Reduce, None, false, i)).collect();
        steps.push(step(StepKind::Copy, None, false, 0));
        steps.extend((0..18).map(|i| step(StepKind::Reduce, None, false, i)));
        let (l, f) = lower(&gpu(vec![steps]), Runtime::Executor);
        assert_eq!(l.tbs[0][2].reduce_srcs.len(), 18);
        assert!(f.iter().any(|x| x.is_error() && x.message.contains("18 operands")), "{f:?}");
    }
}
