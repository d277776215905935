//! The encode thread: the output format's encoder (x264, libvpx-vp9, prores_ks or x265) into its
//! container, one packet write per encoded frame.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::sync::Arc;

use ffmpeg::codec::{self, encoder};
use ffmpeg::format::{self, context::Output};
use ffmpeg::{color, frame, picture, Dictionary, Rational};
use ffmpeg_next as ffmpeg;

use super::decode::Picture;
use super::flow::{Flow, Kind};
use crate::error::Cause;
use crate::format::OutputFormat;
use crate::{packets, MediaError};

/// HDR10 static metadata: a P3-D65 mastering display of 0.0001 to 1000 cd/m² (the common
/// grading monitor), and content light levels of the SDR graphics placed at 203 cd/m².
const MASTER_DISPLAY: &str = "G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)";
const MAX_CLL: &str = "203,203";

/// The encoder settings of one segment.
pub(crate) struct Settings {
    pub(crate) format: OutputFormat,
    pub(crate) path: PathBuf,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) fps_num: u32,
    pub(crate) fps_den: u32,
    pub(crate) crf: u8,
    pub(crate) preset: String,
    pub(crate) x264_params: Option<String>,
    /// 0: the codec's automatic count.
    pub(crate) threads: u32,
    /// Forced keyframes: every `.0` render frames, the segment starting at render frame `.1`.
    pub(crate) keyframes: Option<(u32, u64)>,
}

/// Runs until the picture channel closes, then flushes x264 and writes the trailer. Returns the
/// number of frames encoded; on failure records it in `flow` and leaves the file without a
/// trailer (the owner deletes it).
pub(crate) fn run(settings: Settings, output: Output, pictures: Receiver<Picture>, flow: Arc<Flow>) -> Option<u64> {
    match encode_all(settings, output, &pictures, &flow) {
        Ok(frames) => Some(frames),
        Err(error) => {
            flow.fail(error);
            None
        }
    }
}

fn encode_all(
    settings: Settings,
    output: Output,
    pictures: &Receiver<Picture>,
    flow: &Flow,
) -> Result<u64, MediaError> {
    let mut segment = Segment::open(&settings, output)?;
    let mut last: Option<frame::Video> = None;
    for picture in pictures {
        if flow.has_failed() {
            break;
        }
        let (index, frame, kind) = match picture {
            Picture::New { index, frame } => (index, last.insert(frame), Kind::Picture),
            // The encoder checks that a frame was pushed before any repeat.
            Picture::Repeat { index } => (
                index,
                last.as_mut().expect("a repeat always follows a frame"),
                Kind::Repeat,
            ),
        };
        segment.encode(index, frame)?;
        flow.retire(kind);
    }
    // The decode thread closes the channel early when it fails; then there is nothing to finish.
    if let Some(failure) = flow.failure() {
        return Err(failure);
    }
    segment.finish()
}

struct Segment {
    path: PathBuf,
    encoder: encoder::Video,
    output: Output,
    encoder_time_base: Rational,
    stream_time_base: Rational,
    frames: u64,
    keyframes: Option<(u32, u64)>,
}

impl Segment {
    fn open(settings: &Settings, mut output: Output) -> Result<Self, MediaError> {
        let format = settings.format;
        let name = format.encoder_name();
        let opening = format!("opening the {name} encoder");
        let codec = encoder::find_by_name(name).ok_or_else(|| {
            MediaError::libav(
                &opening,
                format!("this libavcodec was built without {name}; rebuild the addon with npm run build:native"),
            )
        })?;
        let mut context = codec::Context::new_with_codec(codec)
            .encoder()
            .video()
            .map_err(|e| MediaError::libav(&opening, e))?;
        let time_base = Rational::new(settings.fps_den as i32, settings.fps_num as i32);
        let (space, primaries, transfer) = format.colour();
        context.set_width(settings.width);
        context.set_height(settings.height);
        context.set_format(format.pixel());
        context.set_time_base(time_base);
        context.set_frame_rate(Some(Rational::new(settings.fps_num as i32, settings.fps_den as i32)));
        context.set_color_range(color::Range::MPEG);
        context.set_colorspace(space);
        context.set_color_primaries(primaries);
        context.set_color_transfer_characteristic(transfer);
        // Closed GOPs make every segment independently decodable, so segments can be joined
        // by stream copy.
        let mut flags = codec::Flags::CLOSED_GOP;
        if output.format().flags().contains(format::Flags::GLOBAL_HEADER) {
            flags |= codec::Flags::GLOBAL_HEADER;
        }
        context.set_flags(flags);
        let encoder = context
            .open_with(codec_options(settings))
            .map_err(|e| MediaError::libav(&opening, e))?;

        let mut stream = output
            .add_stream(codec)
            .map_err(|e| MediaError::libav("adding the video stream", e))?;
        stream.set_parameters(&encoder);
        stream.set_time_base(time_base);
        stream.set_avg_frame_rate(Rational::new(settings.fps_num as i32, settings.fps_den as i32));
        output
            .write_header()
            .map_err(|e| writing(&settings.path, "the header", e))?;
        // The muxer may pick a finer time base for the stream while writing the header.
        let stream_time_base = output.stream(0).expect("the stream was just added").time_base();

        Ok(Segment {
            path: settings.path.clone(),
            encoder,
            output,
            encoder_time_base: time_base,
            stream_time_base,
            frames: 0,
            keyframes: settings.keyframes,
        })
    }

    fn encode(&mut self, index: u64, frame: &mut frame::Video) -> Result<(), MediaError> {
        frame.set_pts(Some(index as i64));
        if let Some((every, first_frame)) = self.keyframes {
            // Set on every frame: a repeated frame is the same picture sent again.
            let key = (first_frame + index).is_multiple_of(u64::from(every));
            frame.set_kind(if key { picture::Type::I } else { picture::Type::None });
        }
        self.encoder
            .send_frame(frame)
            .map_err(|e| MediaError::frame(index, format!("the encoder refused the frame: {e}")))?;
        self.frames += 1;
        self.write_ready_packets()
    }

    fn finish(mut self) -> Result<u64, MediaError> {
        self.encoder
            .send_eof()
            .map_err(|e| MediaError::libav("flushing the encoder", e))?;
        self.write_ready_packets()?;
        self.output
            .write_trailer()
            .map_err(|e| writing(&self.path, "the trailer", e))?;
        Ok(self.frames)
    }

    fn write_ready_packets(&mut self) -> Result<(), MediaError> {
        let target = packets::VideoTarget {
            output: &mut self.output,
            path: &self.path,
            time_base: self.encoder_time_base,
            stream_time_base: self.stream_time_base,
            // Every frame lasts one tick of the encoder time base; saying so lets the muxer give
            // the last frame its full duration, so the file lasts exactly frames / fps.
            duration: 1,
        };
        packets::write_video(&mut self.encoder, target, "encoding")
    }
}

/// The per-codec options; `crf` and `preset` use x264's scale and names for every format.
fn codec_options(settings: &Settings) -> Dictionary<'static> {
    let mut options = Dictionary::new();
    let threads = match settings.threads {
        0 => "auto".to_string(),
        n => n.to_string(),
    };
    match settings.format {
        OutputFormat::Mp4 => {
            options.set("preset", &settings.preset);
            options.set("crf", &settings.crf.to_string());
            let params = match (x264_cpu_without_avx512(), &settings.x264_params) {
                (Some(cpu), Some(params)) => Some(format!("asm={cpu}:{params}")),
                (Some(cpu), None) => Some(format!("asm={cpu}")),
                (None, params) => params.clone(),
            };
            if let Some(params) = params {
                options.set("x264-params", &params);
            }
            // libavcodec's default is one thread; x264 scales with cores when asked for "auto".
            options.set("threads", &threads);
        }
        OutputFormat::Webm => {
            // Constant quality (bitrate 0); libvpx's speed steps stand in for x264's presets.
            options.set("crf", &settings.crf.to_string());
            options.set("b", "0");
            options.set("deadline", "good");
            options.set("cpu-used", &vp9_speed(&settings.preset).to_string());
            options.set("row-mt", "1");
            options.set("threads", &threads);
        }
        OutputFormat::Mov => {
            // ProRes 4444 with 16-bit alpha; its quality follows its profile, not a CRF.
            options.set("profile", "4444");
            options.set("alpha_bits", "16");
            options.set("threads", &threads);
        }
        OutputFormat::HdrPq | OutputFormat::HdrHlg => {
            options.set("preset", &settings.preset);
            options.set("crf", &settings.crf.to_string());
            // x265 opens GOPs by default, which would tie each segment to the next.
            let params = format!("open-gop=0:log-level=error:master-display={MASTER_DISPLAY}:max-cll={MAX_CLL}");
            options.set("x265-params", &params);
        }
    }
    options
}

/// x264's CPU flags for this machine less AVX-512, or None where it has no AVX-512 (x264 then
/// detects the same flags itself). With its AVX-512 code x264 (build 164) encodes the same frames
/// differently from one encoder to the next in a process: measured on a 1080x1920 page, 3 distinct
/// encodings of one 57-frame cell in 5 encoders, the same with AVX2 in 8 of 8, or without
/// macroblock-tree rate control. A cell must encode the same in every render, or a batch row
/// would not be its lone render and frames would depend on the worker count.
fn x264_cpu_without_avx512() -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    {
        /// x264.h's X264_CPU_AVX512.
        const AVX512: u32 = 1 << 16;
        extern "C" {
            fn x264_cpu_detect() -> u32;
        }
        // SAFETY: x264_cpu_detect only reads cpuid and xgetbv; the static libx264 the addon links defines it.
        let cpu = unsafe { x264_cpu_detect() };
        (cpu & AVX512 != 0).then_some(cpu & !AVX512)
    }
    #[cfg(not(target_arch = "x86_64"))]
    None
}

/// libvpx's cpu-used (0 slowest .. 8 fastest) for an x264 preset name.
fn vp9_speed(preset: &str) -> usize {
    let index = crate::X264_PRESETS.iter().position(|p| *p == preset).unwrap_or(2);
    8usize.saturating_sub(index).max(1)
}

fn writing(path: &Path, what: &str, error: ffmpeg::Error) -> MediaError {
    MediaError::io(path, Cause::of(format!("cannot write {what}"), error))
}
