//! Chunk planning: a given chunk size wins over a target chunk length, and chunks are balanced.
//!
//! A render is a list of contiguous frame ranges. Each range is rendered by one browser session
//! into one closed-GOP segment, so the plan decides both parallelism and segment sizes.

use std::fmt;

/// Frames per chunk when the caller gives neither `chunk_size` nor `target_chunk_frames`.
pub const DEFAULT_CHUNK_SIZE: u32 = 240;
/// Upper bound on the number of chunks when the caller does not give one.
pub const DEFAULT_MAX_PARALLEL_CHUNKS: u32 = 16;

/// What the caller knows about the render. `None` means "use the default".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlanOptions {
    pub total_frames: u32,
    pub chunk_size: Option<u32>,
    pub max_parallel_chunks: Option<u32>,
    pub target_chunk_frames: Option<u32>,
}

/// One contiguous frame range `[start_frame, end_frame)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    pub index: u32,
    pub start_frame: u32,
    pub end_frame: u32,
    pub frame_count: u32,
}

/// A plan option that cannot produce a render. Each variant names the offending field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// `field` was given as 0; every plan field counts frames or chunks and must be at least 1.
    Zero { field: &'static str, hint: &'static str },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Zero { field, hint } => write!(f, "{field} must be at least 1, got 0: {hint}"),
        }
    }
}

impl std::error::Error for PlanError {}

fn positive(value: u32, field: &'static str, hint: &'static str) -> Result<u32, PlanError> {
    if value == 0 {
        Err(PlanError::Zero { field, hint })
    } else {
        Ok(value)
    }
}

/// Splits `total_frames` into balanced contiguous chunks.
///
/// The chunk count is decided first:
/// - with an explicit `chunk_size` (the target is then ignored, and not validated, per rule 3):
///   `min(max_parallel, ceil(total / chunk_size))`;
/// - with `target_chunk_frames` only: `clamp(ceil(total / target), 1, max_parallel)`;
/// - with neither: as the first case with the default chunk size.
///
/// Frames are then spread so that chunk sizes differ by at most one, larger chunks first. This
/// keeps the slowest chunk (which bounds wall time) as small as the count allows.
pub fn plan_chunks(options: PlanOptions) -> Result<Vec<Chunk>, PlanError> {
    let total = positive(
        options.total_frames,
        "totalFrames",
        "the composition has no frames; check its duration and fps",
    )?;
    let max_parallel = positive(
        options.max_parallel_chunks.unwrap_or(DEFAULT_MAX_PARALLEL_CHUNKS),
        "maxParallelChunks",
        "pass a positive number of chunks, or omit it for the default of 16",
    )?;

    let count = match (options.chunk_size, options.target_chunk_frames) {
        (Some(chunk_size), _) => {
            let chunk_size = positive(
                chunk_size,
                "chunkSize",
                "pass a positive number of frames, or omit it for the default of 240",
            )?;
            total.div_ceil(chunk_size).min(max_parallel)
        }
        (None, Some(target)) => {
            let target = positive(
                target,
                "targetChunkFrames",
                "pass a positive number of frames, or omit it",
            )?;
            total.div_ceil(target).clamp(1, max_parallel)
        }
        (None, None) => total.div_ceil(DEFAULT_CHUNK_SIZE).min(max_parallel),
    };

    Ok(balanced(total, count))
}

/// `count` contiguous chunks covering `[0, total)`; the first `total % count` get one extra frame.
fn balanced(total: u32, count: u32) -> Vec<Chunk> {
    let base = total / count;
    let larger = total % count;
    let mut start = 0;
    (0..count)
        .map(|index| {
            let frame_count = base + u32::from(index < larger);
            let chunk = Chunk {
                index,
                start_frame: start,
                end_frame: start + frame_count,
                frame_count,
            };
            start += frame_count;
            chunk
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(total: u32, chunk_size: Option<u32>, max_parallel: Option<u32>, target: Option<u32>) -> Vec<Chunk> {
        plan_chunks(PlanOptions {
            total_frames: total,
            chunk_size,
            max_parallel_chunks: max_parallel,
            target_chunk_frames: target,
        })
        .expect("valid plan")
    }

    fn sizes(chunks: &[Chunk]) -> Vec<u32> {
        chunks.iter().map(|c| c.frame_count).collect()
    }

    /// Every plan must be contiguous, cover [0, total), be balanced and index chunks in order.
    fn assert_well_formed(chunks: &[Chunk], total: u32) {
        assert!(!chunks.is_empty());
        let mut next = 0;
        for (i, c) in chunks.iter().enumerate() {
            assert_eq!(c.index as usize, i);
            assert_eq!(c.start_frame, next);
            assert_eq!(c.end_frame - c.start_frame, c.frame_count);
            assert!(c.frame_count >= 1);
            next = c.end_frame;
        }
        assert_eq!(next, total);
        let max = chunks.iter().map(|c| c.frame_count).max().unwrap();
        let min = chunks.iter().map(|c| c.frame_count).min().unwrap();
        assert!(max - min <= 1, "unbalanced: {:?}", sizes(chunks));
        assert!(max <= total.div_ceil(chunks.len() as u32));
        assert!(
            sizes(chunks).windows(2).all(|w| w[0] >= w[1]),
            "larger chunks must come first"
        );
    }

    #[test]
    fn spec_example_five_seconds_at_30fps_is_one_chunk() {
        let chunks = plan(150, None, None, None);
        assert_eq!(
            chunks,
            vec![Chunk {
                index: 0,
                start_frame: 0,
                end_frame: 150,
                frame_count: 150
            }]
        );
    }

    #[test]
    fn spec_example_sixty_seconds_at_30fps_is_eight_chunks() {
        let chunks = plan(1800, None, None, None);
        assert_eq!(chunks.len(), 8);
        assert_eq!(sizes(&chunks), vec![225; 8]);
        assert_well_formed(&chunks, 1800);
    }

    #[test]
    fn long_render_without_target_uses_max_parallel_chunks() {
        // 10 minutes at 30 fps would need 75 chunks of 240; it is capped at 16 larger ones.
        let chunks = plan(18_000, None, None, None);
        assert_eq!(chunks.len(), 16);
        assert_eq!(chunks[0].frame_count, 18_000u32.div_ceil(16));
        assert_well_formed(&chunks, 18_000);
    }

    #[test]
    fn never_more_chunks_than_ceil_total_over_chunk_size() {
        for total in [1, 2, 239, 240, 241, 479, 480, 481, 1000, 3839, 3840, 3841] {
            let chunks = plan(total, Some(240), Some(16), None);
            assert!(chunks.len() as u32 <= total.div_ceil(240), "total {total}");
            assert_eq!(chunks.len() as u32, total.div_ceil(240).min(16));
            assert_well_formed(&chunks, total);
        }
    }

    #[test]
    fn target_is_ignored_when_chunk_size_is_set() {
        let with_target = plan(1000, Some(100), Some(16), Some(10));
        let without = plan(1000, Some(100), Some(16), None);
        assert_eq!(with_target, without);
        assert_eq!(with_target.len(), 10);
        // An ignored target is not validated either.
        assert_eq!(plan(1000, Some(100), Some(16), Some(0)), without);
    }

    #[test]
    fn target_sets_count_as_ceil_total_over_target() {
        let chunks = plan(1000, None, Some(16), Some(300));
        assert_eq!(chunks.len(), 4);
        assert_eq!(sizes(&chunks), vec![250; 4]);
        assert_well_formed(&chunks, 1000);
    }

    #[test]
    fn target_larger_than_total_gives_one_chunk() {
        let chunks = plan(50, None, Some(16), Some(1000));
        assert_eq!(chunks.len(), 1);
        assert_well_formed(&chunks, 50);
    }

    #[test]
    fn target_clamps_to_max_parallel_and_chunks_exceed_target() {
        let chunks = plan(10_000, None, Some(4), Some(100));
        assert_eq!(chunks.len(), 4);
        assert!(chunks.iter().all(|c| c.frame_count > 100));
        assert_well_formed(&chunks, 10_000);
    }

    #[test]
    fn target_can_plan_more_chunks_than_the_default_chunk_size_would() {
        // 300 frames: default chunk size gives 2 chunks, a target of 30 gives 10.
        assert_eq!(plan(300, None, None, None).len(), 2);
        assert_eq!(plan(300, None, None, Some(30)).len(), 10);
    }

    #[test]
    fn chunk_size_count_clamps_to_max_parallel() {
        let chunks = plan(1000, Some(10), Some(3), None);
        assert_eq!(sizes(&chunks), vec![334, 333, 333]);
        assert_well_formed(&chunks, 1000);
    }

    #[test]
    fn uneven_split_puts_larger_chunks_first() {
        let chunks = plan(10, Some(3), Some(16), None);
        assert_eq!(sizes(&chunks), vec![3, 3, 2, 2]);
        assert_eq!((chunks[3].start_frame, chunks[3].end_frame), (8, 10));
        assert_well_formed(&chunks, 10);
    }

    #[test]
    fn single_frame_is_one_chunk() {
        for (cs, target) in [(None, None), (Some(1), None), (None, Some(1))] {
            let chunks = plan(1, cs, Some(16), target);
            assert_eq!(
                chunks,
                vec![Chunk {
                    index: 0,
                    start_frame: 0,
                    end_frame: 1,
                    frame_count: 1
                }]
            );
        }
    }

    #[test]
    fn exhaustive_small_plans_are_well_formed() {
        for total in 1..=200 {
            for max_parallel in 1..=8 {
                for cs in [None, Some(1), Some(7), Some(240)] {
                    for target in [None, Some(1), Some(13)] {
                        let chunks = plan(total, cs, Some(max_parallel), target);
                        assert!(chunks.len() as u32 <= max_parallel);
                        assert_well_formed(&chunks, total);
                    }
                }
            }
        }
    }

    fn error_for(options: PlanOptions) -> String {
        plan_chunks(options).expect_err("plan must be refused").to_string()
    }

    #[test]
    fn zero_values_are_refused_naming_the_field() {
        let base = PlanOptions {
            total_frames: 100,
            ..Default::default()
        };
        let msg = error_for(PlanOptions {
            total_frames: 0,
            ..base
        });
        assert!(msg.starts_with("totalFrames must be at least 1"), "{msg}");
        let msg = error_for(PlanOptions {
            chunk_size: Some(0),
            ..base
        });
        assert!(msg.starts_with("chunkSize must be at least 1"), "{msg}");
        let msg = error_for(PlanOptions {
            max_parallel_chunks: Some(0),
            ..base
        });
        assert!(msg.starts_with("maxParallelChunks must be at least 1"), "{msg}");
        let msg = error_for(PlanOptions {
            target_chunk_frames: Some(0),
            ..base
        });
        assert!(msg.starts_with("targetChunkFrames must be at least 1"), "{msg}");
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        assert_eq!(DEFAULT_CHUNK_SIZE, 240);
        assert_eq!(DEFAULT_MAX_PARALLEL_CHUNKS, 16);
        assert_eq!(plan(241, None, None, None).len(), 2);
        assert_eq!(plan(240 * 40, None, None, None).len(), 16);
    }
}
