/** A progress bar on stderr: redrawn in place on a terminal, otherwise a line every 10 %. */
export interface ProgressBar {
  update(done: number): void;
  finish(): void;
}

const clamp = (fraction: number) => Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 1));

/** `[####......]` for a fraction in [0, 1]. */
export function barGraphic(fraction: number, width = 30): string {
  const filled = Math.round(clamp(fraction) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

/** `[####......]  40%` */
export function bar(fraction: number, width = 30): string {
  return `${barGraphic(fraction, width)} ${Math.floor(clamp(fraction) * 100)
    .toString()
    .padStart(3)}%`;
}

const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

export function byteProgress(label: string, total: number, stream: NodeJS.WritableStream & { isTTY?: boolean }) {
  const tty = Boolean(stream.isTTY);
  let lastDecile = -1;
  let lastDraw = 0;
  const render = (done: number) =>
    `${label} ${bar(total === 0 ? 1 : done / total)} ${mebibytes(done)}/${mebibytes(total)}`;
  const progress: ProgressBar = {
    update(done) {
      if (tty) {
        const now = Date.now();
        if (now - lastDraw < 100 && done < total) return;
        lastDraw = now;
        stream.write(`\r${render(done)}`);
        return;
      }
      const decile = total === 0 ? 10 : Math.floor((done / total) * 10);
      if (decile > lastDecile) {
        lastDecile = decile;
        stream.write(`${render(done)}\n`);
      }
    },
    finish() {
      if (tty) stream.write(`\r${render(total)}\n`);
      else if (lastDecile < 10) stream.write(`${render(total)}\n`);
    },
  };
  return progress;
}
