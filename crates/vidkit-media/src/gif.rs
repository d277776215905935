//! The gif format: PNG frames in, one animated GIF out, with one 256-colour palette for the whole
//! render. Two passes over the frames: libavfilter's `palettegen` builds the palette from every
//! frame, then `paletteuse` maps each frame to it (with error diffusion) for the GIF encoder.
//! The frames are read twice rather than held: a render's decoded frames do not fit in memory.

use std::fs;
use std::path::{Path, PathBuf};

use ffmpeg::codec::{self, decoder, encoder, packet};
use ffmpeg::format::{context::Output, Pixel};
use ffmpeg::software::scaling;
use ffmpeg::{filter, frame, Dictionary, Packet, Rational};
use ffmpeg_next as ffmpeg;

use crate::error::Cause;
use crate::{libav, packets, MediaError};

/// How the GIF plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GifOptions {
    pub fps_num: u32,
    pub fps_den: u32,
    /// Times the animation repeats after its first play; 0 repeats it for ever (the GIF
    /// "Netscape" loop count).
    pub loop_count: u16,
}

/// What a GIF encode produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GifStats {
    pub frames: u64,
    pub bytes: u64,
}

/// `palettegen` counts every pixel of every frame (stats_mode=full). HyperFrames asks for
/// stats_mode=diff, which in libavfilter 8 (FFmpeg 5.1) counts each changed pixel's colour in the
/// frame before, so colours that appear only in the last frame were left out of the palette.
const PALETTEGEN: &str = "palettegen=stats_mode=full";
const PALETTEUSE: &str = "paletteuse=dither=sierra2_4a";

/// Encodes `frames` (PNG files, in order, all of one size) into an animated GIF at `output`. On
/// error no output file is left behind.
pub fn encode_gif(frames: &[PathBuf], output: &Path, options: &GifOptions) -> Result<GifStats, MediaError> {
    libav::init();
    if frames.is_empty() {
        return Err(MediaError::Usage("encodeGif needs at least one frame".into()));
    }
    if options.fps_num == 0 || options.fps_den == 0 {
        return Err(MediaError::InvalidOptions(format!(
            "fpsNum/fpsDen must both be positive, got {}/{}",
            options.fps_num, options.fps_den
        )));
    }
    let result = write_gif(frames, output, options);
    if result.is_err() {
        // The error is what the caller needs; a failed cleanup of a partial file is secondary.
        let _ = fs::remove_file(output);
    }
    result
}

fn write_gif(frames: &[PathBuf], output: &Path, options: &GifOptions) -> Result<GifStats, MediaError> {
    let mut reader = FrameReader::new()?;
    let first = reader.read(0, &frames[0])?;
    let (width, height) = (first.width(), first.height());
    let time_base = Rational::new(options.fps_den as i32, options.fps_num as i32);
    let source = format!(
        "video_size={width}x{height}:pix_fmt=bgra:time_base={}/{}:pixel_aspect=1/1",
        time_base.numerator(),
        time_base.denominator()
    );

    let palette = build_palette(&mut reader, frames, first, &source)?;

    let mut graph = filter::Graph::new();
    add(&mut graph, "buffer", "in", &source)?;
    add(&mut graph, "buffer", "palette", &palette_source(&palette))?;
    add(&mut graph, "buffersink", "out", "")?;
    graph
        .output("in", 0)
        .and_then(|p| p.output("palette", 0))
        .and_then(|p| p.input("out", 0))
        .and_then(|p| p.parse(&format!("[in][palette]{PALETTEUSE}[out]")))
        .map_err(|e| MediaError::libav("setting up paletteuse", e))?;
    graph
        .validate()
        .map_err(|e| MediaError::libav("setting up paletteuse", e))?;
    push(&mut graph, "palette", &palette)?;
    close(&mut graph, "palette")?;

    let mut gif = GifWriter::open(output, width, height, time_base, options.loop_count)?;
    for (index, path) in frames.iter().enumerate() {
        let mut picture = reader.read(index, path)?;
        picture.set_pts(Some(index as i64));
        push(&mut graph, "in", &picture)?;
        drain(&mut graph, |mapped| gif.encode(mapped))?;
    }
    close(&mut graph, "in")?;
    drain(&mut graph, |mapped| gif.encode(mapped))?;
    gif.finish()
}

/// Pass one: every frame through `palettegen`, which hands over the palette at the end.
fn build_palette(
    reader: &mut FrameReader,
    frames: &[PathBuf],
    mut first: frame::Video,
    source: &str,
) -> Result<frame::Video, MediaError> {
    let mut graph = filter::Graph::new();
    add(&mut graph, "buffer", "in", source)?;
    add(&mut graph, "buffersink", "out", "")?;
    graph
        .output("in", 0)
        .and_then(|p| p.input("out", 0))
        .and_then(|p| p.parse(PALETTEGEN))
        .map_err(|e| MediaError::libav("setting up palettegen", e))?;
    graph
        .validate()
        .map_err(|e| MediaError::libav("setting up palettegen", e))?;
    first.set_pts(Some(0));
    push(&mut graph, "in", &first)?;
    for (index, path) in frames.iter().enumerate().skip(1) {
        let mut picture = reader.read(index, path)?;
        picture.set_pts(Some(index as i64));
        push(&mut graph, "in", &picture)?;
    }
    close(&mut graph, "in")?;
    let mut palette = None;
    drain(&mut graph, |frame| {
        palette = Some(frame.clone());
        Ok(())
    })?;
    palette.ok_or_else(|| MediaError::libav("building the palette", "palettegen produced no palette"))
}

/// The buffer source that feeds `paletteuse` the palette image (16x16 BGRA from `palettegen`).
fn palette_source(palette: &frame::Video) -> String {
    format!(
        "video_size={}x{}:pix_fmt=bgra:time_base=1/1:pixel_aspect=1/1",
        palette.width(),
        palette.height()
    )
}

fn add(graph: &mut filter::Graph, filter_name: &str, name: &str, args: &str) -> Result<(), MediaError> {
    let filter = filter::find(filter_name).ok_or_else(|| {
        MediaError::libav(
            "setting up the gif palette",
            format!("this libavfilter was built without {filter_name}; rebuild libav with scripts/build-libav.sh"),
        )
    })?;
    graph
        .add(&filter, name, args)
        .map(|_| ())
        .map_err(|e| MediaError::libav(format!("adding the {filter_name} filter"), e))
}

fn push(graph: &mut filter::Graph, source: &str, frame: &frame::Video) -> Result<(), MediaError> {
    graph
        .get(source)
        .expect("the source was added to the graph")
        .source()
        .add(frame)
        .map_err(|e| MediaError::libav("filtering a frame for the gif palette", e))
}

fn close(graph: &mut filter::Graph, source: &str) -> Result<(), MediaError> {
    graph
        .get(source)
        .expect("the source was added to the graph")
        .source()
        .flush()
        .map_err(|e| MediaError::libav("closing the gif palette filter", e))
}

/// Hands every frame the sink has ready to `take`.
fn drain(
    graph: &mut filter::Graph,
    mut take: impl FnMut(&frame::Video) -> Result<(), MediaError>,
) -> Result<(), MediaError> {
    let mut out = frame::Video::empty();
    loop {
        match graph
            .get("out")
            .expect("the sink was added to the graph")
            .sink()
            .frame(&mut out)
        {
            Ok(()) => take(&out)?,
            Err(ffmpeg::Error::Eof) => return Ok(()),
            Err(ffmpeg::Error::Other { errno }) if errno == ffmpeg::util::error::EAGAIN => return Ok(()),
            Err(e) => return Err(MediaError::libav("filtering for the gif palette", e)),
        }
    }
}

/// Decodes PNG files into BGRA pictures, the one format `palettegen` and `paletteuse` take.
struct FrameReader {
    decoder: decoder::Video,
    scaler: Option<(Pixel, u32, u32, scaling::Context)>,
}

impl FrameReader {
    fn new() -> Result<Self, MediaError> {
        let codec = decoder::find(codec::Id::PNG)
            .ok_or_else(|| MediaError::libav("opening the PNG decoder", "this libavcodec has no such decoder"))?;
        let decoder = codec::Context::new_with_codec(codec)
            .decoder()
            .video()
            .map_err(|e| MediaError::libav("opening the PNG decoder", e))?;
        Ok(FrameReader { decoder, scaler: None })
    }

    fn read(&mut self, index: usize, path: &Path) -> Result<frame::Video, MediaError> {
        let bytes =
            fs::read(path).map_err(|e| MediaError::io(path, Cause::of(format!("cannot read frame {index}"), e)))?;
        let failed = |message: String| MediaError::frame(index as u64, format!("{}: {message}", path.display()));
        let mut packet = Packet::copy(&bytes);
        // Every frame is a whole picture, not a delta on the previous one.
        packet.set_flags(packet::Flags::KEY);
        self.decoder
            .send_packet(&packet)
            .map_err(|e| failed(format!("cannot decode the PNG: {e}")))?;
        let mut decoded = frame::Video::empty();
        self.decoder
            .receive_frame(&mut decoded)
            .map_err(|e| failed(format!("the PNG decoded to no picture: {e}")))?;
        let (format, width, height) = (decoded.format(), decoded.width(), decoded.height());
        let reusable = matches!(&self.scaler, Some((f, w, h, _)) if (*f, *w, *h) == (format, width, height));
        if !reusable {
            let context =
                scaling::Context::get(format, width, height, Pixel::BGRA, width, height, scaling::Flags::POINT)
                    .map_err(|e| failed(format!("cannot convert the PNG to BGRA: {e}")))?;
            self.scaler = Some((format, width, height, context));
        }
        let (_, _, _, scaler) = self.scaler.as_mut().expect("set above");
        let mut bgra = frame::Video::empty();
        scaler
            .run(&decoded, &mut bgra)
            .map_err(|e| failed(format!("cannot convert the PNG to BGRA: {e}")))?;
        Ok(bgra)
    }
}

/// The GIF encoder (PAL8 frames from `paletteuse`) and muxer.
struct GifWriter {
    path: PathBuf,
    encoder: encoder::Video,
    output: Output,
    time_base: Rational,
    stream_time_base: Rational,
    frames: u64,
}

impl GifWriter {
    fn open(path: &Path, width: u32, height: u32, time_base: Rational, loop_count: u16) -> Result<Self, MediaError> {
        let mut output = ffmpeg::format::output_as(path, "gif")
            .map_err(|e| MediaError::io(path, Cause::of("cannot create the output file", e)))?;
        let opening = "opening the gif encoder";
        let codec = encoder::find(codec::Id::GIF).ok_or_else(|| {
            MediaError::libav(
                opening,
                "this libavcodec was built without gif; rebuild libav with scripts/build-libav.sh",
            )
        })?;
        let mut context = codec::Context::new_with_codec(codec)
            .encoder()
            .video()
            .map_err(|e| MediaError::libav(opening, e))?;
        context.set_width(width);
        context.set_height(height);
        context.set_format(Pixel::PAL8);
        context.set_time_base(time_base);
        let encoder = context
            .open_with(Dictionary::new())
            .map_err(|e| MediaError::libav(opening, e))?;
        let mut stream = output
            .add_stream(codec)
            .map_err(|e| MediaError::libav("adding the gif stream", e))?;
        stream.set_parameters(&encoder);
        stream.set_time_base(time_base);
        let mut muxer_options = Dictionary::new();
        muxer_options.set("loop", &loop_count.to_string());
        output
            .write_header_with(muxer_options)
            .map_err(|e| MediaError::io(path, Cause::of("cannot write the header", e)))?;
        let stream_time_base = output.stream(0).expect("the stream was just added").time_base();
        Ok(GifWriter {
            path: path.to_path_buf(),
            encoder,
            output,
            time_base,
            stream_time_base,
            frames: 0,
        })
    }

    fn encode(&mut self, picture: &frame::Video) -> Result<(), MediaError> {
        self.encoder
            .send_frame(picture)
            .map_err(|e| MediaError::frame(self.frames, format!("the gif encoder refused the frame: {e}")))?;
        self.frames += 1;
        self.write_ready_packets()
    }

    fn finish(mut self) -> Result<GifStats, MediaError> {
        self.encoder
            .send_eof()
            .map_err(|e| MediaError::libav("flushing the gif encoder", e))?;
        self.write_ready_packets()?;
        self.output
            .write_trailer()
            .map_err(|e| MediaError::io(&self.path, Cause::of("cannot write the trailer", e)))?;
        drop(self.output);
        let bytes = fs::metadata(&self.path)
            .map_err(|e| MediaError::io(&self.path, e))?
            .len();
        Ok(GifStats {
            frames: self.frames,
            bytes,
        })
    }

    fn write_ready_packets(&mut self) -> Result<(), MediaError> {
        let target = packets::VideoTarget {
            output: &mut self.output,
            path: &self.path,
            time_base: self.time_base,
            stream_time_base: self.stream_time_base,
            duration: 1,
        };
        packets::write_video(&mut self.encoder, target, "encoding the gif")
    }
}
