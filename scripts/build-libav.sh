#!/usr/bin/env bash
# Builds the static libav that the native addon links: FFmpeg 5.1 with x264, x265 (10-bit, for
# hdr-pq and hdr-hlg), libvpx (VP9), Opus, dav1d (AV1 input) and zlib (PNG), each from Debian 12's
# source package, configured with only the components vidkit uses
# (docs/explanation/video-pipeline.md). The prefix is cached under a name keyed by this script's
# commands (its comments aside) and the exact source versions, so running it again, or from a fresh
# clone on the same machine, even with an empty HOME, only links it.
#
# Prints the prefix on stdout and points `.libav` in the repository at it, which
# .cargo/config.toml hands to ffmpeg-sys-next through pkg-config.
# VIDKIT_LIBAV_CACHE: the cache directory (default /var/tmp/vidkit-libav-cache, which outlives a
# HOME and a reboot, like the render image's cache).
# VIDKIT_LIBAV_JOBS: parallel compile jobs (default: every core).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
script="$repo/scripts/build-libav.sh"

log() { printf 'build-libav: %s\n' "$*" >&2; }
fail() { log "error: $*"; exit 3; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Source packages in build order: each one's static library is found by the next through the prefix.
PACKAGES=(zlib opus x264 x265 libvpx dav1d ffmpeg)
JOBS=${VIDKIT_LIBAV_JOBS:-$(nproc)}
# No -g: the static libraries' debug info would multiply the addon's size.
export CFLAGS="-O2 -fPIC" CXXFLAGS="-O2 -fPIC"

# "package=version" for each source package named, the newest in Debian 12's suites (main,
# updates, security); apt-cache madison lists each package's versions newest first.
bookworm_versions() {
  apt-cache madison "$@" 2>/dev/null | awk -F' [|] ' '
    $3 ~ / bookworm(-updates|-security)?\/main Sources$/ {
      gsub(/ /, "", $1); gsub(/ /, "", $2)
      if (!($1 in seen)) { seen[$1]; print $1 "=" $2 }
    }'
}

# The deb-src line of one of Debian 12's suites, on the mirror and with the keyring of the entry
# apt already has for that suite: apt refuses two entries of a suite with different keyrings.
deb_src_line() { # suite, mirror when apt has no entry for it
  local uri='' entry='' file index keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  read -r uri entry < <(apt-get indextargets --format '$(REPO_URI) $(SOURCESENTRY)' \
    'Identifier: Packages' "Release: $1" | head -1) || true
  if [ -n "$entry" ]; then
    # A .sources file counts its entries by paragraph, a .list file by line.
    file=${entry%:*} index=${entry##*:}
    case $file in
      *.sources) keyring=$(awk -v RS= -v n="$index" 'NR == n' "$file" | sed -n 's/^Signed-By: *//p') ;;
      *) keyring=$(sed -n "${index}p" "$file" | grep -o 'signed-by=[^] ]*' | cut -d= -f2 || true) ;;
    esac
  fi
  printf 'deb-src %s%s %s main\n' "${keyring:+[signed-by=$keyring] }" "${uri:-$2}" "$1"
}

# apt lists Debian 12's source packages once a deb-src entry exists.
ensure_sources() {
  [ -n "$(bookworm_versions ffmpeg)" ] && return
  command -v apt-get >/dev/null || fail "apt-get is required: libav is built from Debian 12's source packages"
  local file=/etc/apt/sources.list.d/vidkit-bookworm-src.list
  log "adding Debian 12's source packages to apt ($file)"
  {
    deb_src_line bookworm http://deb.debian.org/debian/
    deb_src_line bookworm-updates http://deb.debian.org/debian/
    deb_src_line bookworm-security http://deb.debian.org/debian-security/
  } | as_root tee "$file" >/dev/null
  as_root apt-get update -qq -o DPkg::Lock::Timeout=300
  [ -n "$(bookworm_versions ffmpeg)" ] || fail "apt still lists no Debian 12 source of ffmpeg after adding $file"
}

ensure_sources
mapfile -t versions < <(bookworm_versions "${PACKAGES[@]}")
[ ${#versions[@]} -eq ${#PACKAGES[@]} ] ||
  fail "apt lists Debian 12 sources of only ${versions[*]}; wanted ${PACKAGES[*]}"
key=$({ grep -v '^[[:space:]]*#' "$script"; printf '%s\n' "${versions[@]}"; uname -m; } | sha256sum | cut -c1-16)
cache="${VIDKIT_LIBAV_CACHE:-/var/tmp/vidkit-libav-cache}"
prefix="$cache/libav-$key"

link_and_print() {
  ln -sfn "$prefix" "$repo/.libav"
  printf '%s\n' "$prefix"
}
# The stamp is written last: a prefix without it is an interrupted build.
[ -f "$prefix/.complete" ] && { link_and_print; exit 0; }

mkdir -p "$cache"
exec 9>"$prefix.lock"
flock 9
[ -f "$prefix/.complete" ] && { link_and_print; exit 0; }

started=$SECONDS
build="$prefix.build"
buildlog="$prefix.log"
rm -rf "$prefix" "$build"
mkdir -p "$prefix" "$build"
: >"$buildlog"
log "building ${versions[*]} into $prefix ($JOBS jobs; log: $buildlog)"
step() { # description, command...: runs the command in a subshell, so its `cd` stays there
  local what=$1 status
  shift
  log "$what"
  # `set -e` would not apply inside a command tested by `if` or `||`.
  set +e
  (set -e; "$@") >>"$buildlog" 2>&1
  status=$?
  set -e
  if [ "$status" -ne 0 ]; then
    tail -n 30 "$buildlog" >&2
    fail "$what failed; the whole log is $buildlog"
  fi
}

# The libraries find each other only in the prefix, never on the system.
export PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig" PKG_CONFIG_PATH=""
# apt downloads as the user _apt, which cannot write into root's directories.
apt_user=()
[ "$(id -u)" -eq 0 ] && apt_user=(-o APT::Sandbox::User=root)
fetch() { cd "$build" && apt-get source -qq "${apt_user[@]}" "${versions[@]}"; }
step "fetching the source packages" fetch
src() { find "$build" -mindepth 1 -maxdepth 1 -type d -name "$1-*" | head -1; }

build_zlib() {
  cd "$(src zlib)"
  ./configure --static --prefix="$prefix"
  make -j"$JOBS" install
}

build_opus() {
  cd "$(src opus)"
  ./configure --prefix="$prefix" --enable-static --disable-shared --with-pic \
    --disable-doc --disable-extra-programs
  make -j"$JOBS" install
}

build_x264() { # 8-bit only: the mp4 format and video proxies are yuv420p
  cd "$(src x264)"
  ./configure --prefix="$prefix" --enable-static --enable-pic --disable-cli --bit-depth=8 \
    --disable-opencl --disable-avs --disable-swscale --disable-lavf --disable-ffms --disable-gpac \
    --disable-lsmash
  make -j"$JOBS" install-lib-static
}

build_x265() { # 10-bit only (Main 10): it encodes nothing but the HDR formats
  cd "$(src x265)"
  cmake -S source -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_INSTALL_LIBDIR=lib -DENABLE_SHARED=OFF -DENABLE_CLI=OFF -DENABLE_PIC=ON \
    -DHIGH_BIT_DEPTH=ON -DENABLE_LIBNUMA=OFF -DENABLE_HDR10_PLUS=OFF
  cmake --build build -j"$JOBS"
  cmake --install build
}

build_libvpx() { # the VP9 encoder only: libavcodec's own decoders read VP8 and VP9 input
  cd "$(src libvpx)"
  ./configure --prefix="$prefix" --enable-static --disable-shared --enable-pic --as=nasm \
    --disable-vp8 --disable-vp9-decoder --disable-examples --disable-tools --disable-docs \
    --disable-unit-tests --disable-install-bins --disable-install-srcs --disable-webm-io \
    --disable-libyuv
  make -j"$JOBS" install
}

build_dav1d() {
  cd "$(src dav1d)"
  meson setup build --prefix="$prefix" --libdir=lib --buildtype=release --default-library=static \
    -Denable_tools=false -Denable_tests=false -Denable_examples=false
  ninja -C build -j"$JOBS" install
}

# x265 is C++: its libstdc++ goes into the addon too, so the addon does not depend on the host's
# libstdc++. The linker finds this archive in the prefix before the system's shared library.
build_libstdcxx() {
  cp "$(g++ -print-file-name=libstdc++.a)" "$prefix/lib/libstdc++.a"
}

# glibc 2.35 gave hypot a new symbol version. Binding FFmpeg's calls to the first one keeps the
# addon loadable on glibc 2.34 (Amazon Linux 2023, AWS Lambda's Node.js runtimes).
glibc_compat_header() {
  local base
  case $(uname -m) in
    x86_64) base=GLIBC_2.2.5 ;;
    aarch64) base=GLIBC_2.17 ;;
    *) return 0 ;;
  esac
  printf '#ifndef __ASSEMBLER__\n__asm__(".symver hypot,hypot@%s");\n#endif\n' "$base"
}

build_ffmpeg() {
  cd "$(src ffmpeg)"
  glibc_compat_header >glibc-compat.h
  local components=(
    # The formats' video and audio encoders; mjpeg and png make the Rust tests' stills.
    --enable-encoder=libx264,libx265,libvpx_vp9,prores_ks,aac,libopus,mjpeg,png,gif
    # Audio proxies: FLAC, for sources in a codec the browser does not play (media-proxies.ts).
    --enable-encoder=flac
    # The browser's screenshots, and the users' videos and soundtrack sources.
    --enable-decoder=mjpeg,png,h264,hevc,vp8,vp9,libdav1d,prores,aac,mp3float,opus,vorbis,flac
    --enable-decoder=pcm_s16le,pcm_s16be,pcm_s24le,pcm_s24be,pcm_s32le,pcm_f32le,pcm_f64le,pcm_u8
    # Soundtrack sources the browser may not play (the page gets a FLAC proxy): WMA, AC-3, E-AC-3, ALAC.
    --enable-decoder=wmav1,wmav2,wmapro,ac3,eac3,alac
    # hls writes MPEG-TS segments; mpegts writes AAC as ADTS and H.264 as Annex B.
    --enable-muxer=mp4,mov,webm,gif,hls,mpegts,adts,flac
    --enable-bsf=h264_mp4toannexb
    # The gif format's one palette a render (palettegen) and its dithered use (paletteuse).
    --enable-filter=buffer,buffersink,format,scale,palettegen,paletteuse
    --enable-demuxer=mov,matroska,ogg,mp3,wav,flac,aac,mpegts,asf,ac3,eac3
    --enable-parser=h264,hevc,vp8,vp9,av1,aac,mpegaudio,opus,vorbis,flac,mjpeg,png,ac3
    --enable-protocol=file
  )
  ./configure --prefix="$prefix" --pkg-config-flags=--static \
    --extra-cflags="-I$prefix/include -include $PWD/glibc-compat.h" --extra-ldflags="-L$prefix/lib" \
    --enable-static --disable-shared --enable-pic --disable-debug \
    --disable-programs --disable-doc --disable-network --disable-autodetect \
    --disable-everything --disable-avdevice --disable-postproc \
    --enable-gpl --enable-pthreads --enable-zlib \
    --enable-libx264 --enable-libx265 --enable-libvpx --enable-libopus --enable-libdav1d \
    "${components[@]}"
  make -j"$JOBS" install
}

# The .pc files name the prefix relative to themselves, so cargo finds the libraries through the
# repository's `.libav` link whichever prefix it points at.
relocate() {
  sed -i "s|$prefix|\${pcfiledir}/../..|g" "$prefix"/lib/pkgconfig/*.pc
  rm -rf "$prefix/share" "$prefix"/lib/*.la
}

for part in zlib opus x264 x265 libvpx dav1d libstdcxx ffmpeg; do
  step "building $part" "build_$part"
done
step "making the prefix relocatable" relocate
rm -rf "$build"
printf '%s\n' "${versions[@]}" >"$prefix/.complete"
log "built in $((SECONDS - started)) s"
link_and_print
