//! Which decoded frame a media time shows: the last one starting at or before it.

/// Float slack when a frame's time is compared with the time asked for: far below any frame
/// period, far above the error of the seconds arithmetic on either side.
pub(crate) const EPSILON: f64 = 1e-6;

/// Seconds by which a frame's stored time may run late. Containers round timestamps to their tick
/// (WebM and Matroska to 1 ms), so a frame stored up to half a tick late must still show at its
/// exact time; with ticks of 2 ms or finer a timestamp therefore counts half a tick early, as
/// HyperFrames samples sources. Coarser ticks are frame periods themselves and count as they are.
pub(crate) fn rounding_allowance(tick_seconds: f64) -> f64 {
    if tick_seconds > 0.0 && tick_seconds <= 0.002 {
        tick_seconds / 2.0
    } else {
        0.0
    }
}

/// Whether a frame stored at `frame_time` has started by media time `t`.
pub(crate) fn started_by(frame_time: f64, allowance: f64, t: f64) -> bool {
    frame_time - allowance <= t + EPSILON
}

/// The frame shown at `t` among frames in time order: the last that has started by then, or the
/// first when none has (a time before the first frame shows the first frame).
pub(crate) fn shown_at(times: impl IntoIterator<Item = f64>, allowance: f64, t: f64) -> usize {
    let mut shown = 0;
    for (i, time) in times.into_iter().enumerate() {
        if !started_by(time, allowance, t) {
            break;
        }
        shown = i;
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    const MP4_TICK: f64 = 1.0 / 15_360.0;

    #[test]
    fn a_frame_shows_from_its_own_time_until_the_next() {
        let times: Vec<f64> = (0..60).map(|k| f64::from(k) / 30.0).collect();
        let allowance = rounding_allowance(MP4_TICK);
        for n in 0..90 {
            let t = f64::from(n) / 30.0;
            assert_eq!(
                shown_at(times.iter().copied(), allowance, t),
                n.min(59) as usize,
                "t = {t}"
            );
            // Just before the next frame starts, the frame is still this one.
            let before_next = f64::from(n + 1) / 30.0 - 0.001;
            assert_eq!(
                shown_at(times.iter().copied(), allowance, before_next),
                n.min(59) as usize
            );
        }
    }

    #[test]
    fn whole_millisecond_timestamps_of_webm_still_show_at_their_exact_time() {
        // 30 fps in a 1 ms time base: frame 2 stored at 67 ms, 0.33 ms after 2/30 s.
        let times: Vec<f64> = (0..30)
            .map(|k| (f64::from(k) * 1000.0 / 30.0).round() / 1000.0)
            .collect();
        let allowance = rounding_allowance(0.001);
        for n in 0..30 {
            assert_eq!(
                shown_at(times.iter().copied(), allowance, f64::from(n) / 30.0),
                n as usize
            );
        }
    }

    #[test]
    fn a_29_97_fps_source_in_a_30_fps_render_shows_the_frame_that_has_started() {
        // Frame k starts at k x 1001/30000 s, a little after render frame k's k/30 s: render frame
        // k (1 <= k < 1000) still shows source frame k - 1, as a player would.
        let times: Vec<f64> = (0..120).map(|k| f64::from(k) * 1001.0 / 30_000.0).collect();
        let allowance = rounding_allowance(1.0 / 30_000.0);
        assert_eq!(shown_at(times.iter().copied(), allowance, 0.0), 0);
        for n in 1..100 {
            assert_eq!(
                shown_at(times.iter().copied(), allowance, f64::from(n) / 30.0),
                (n - 1) as usize
            );
        }
    }

    #[test]
    fn coarse_time_bases_get_no_allowance_and_times_before_the_first_frame_show_it() {
        assert_eq!(rounding_allowance(1.0 / 25.0), 0.0);
        assert_eq!(rounding_allowance(0.002), 0.001);
        assert_eq!(shown_at([0.5, 1.0], 0.0, 0.1), 0);
    }
}
