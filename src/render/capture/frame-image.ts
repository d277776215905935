import type { Picture } from '../../native-addon';

/**
 * What a capture returns: the browser's encoded screenshot, or a picture the frame channel
 * converted in native memory (frame-channel.ts). A pushed picture is its encoder's: its handle is
 * empty afterwards, so whoever keeps one to push again holds a handle of its own.
 */
export type FrameImage = Buffer | Picture;

/** Bytes of pixels an image holds, for the memory a render keeps of frames drawn ahead. */
export function imageBytes(image: FrameImage): number {
  return Buffer.isBuffer(image) ? image.length : image.byteLength;
}

/** Another handle on the same image, without a copy. */
export function shareImage(image: FrameImage): FrameImage {
  return Buffer.isBuffer(image) ? image : image.share();
}

/** Frees a picture's pixels now rather than when the garbage collector runs; a Buffer is left to it. */
export function releaseImage(image: FrameImage): void {
  if (!Buffer.isBuffer(image)) image.release();
}

/** The image as the browser's encoded bytes: where no frame channel was opened, every image is. */
export function encodedImage(image: FrameImage): Buffer {
  if (!Buffer.isBuffer(image)) throw new Error('internal error: a converted picture reached a sink that writes the browser image files');
  return image;
}
