/** True when a URL's path names an mp4 file (`.../clip.mp4`, query and fragment ignored). */
export function isMp4Url(url: string): boolean {
  try {
    return new URL(url).pathname.toLowerCase().endsWith('.mp4');
  } catch {
    return false;
  }
}
