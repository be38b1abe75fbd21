// Progress of a long CLI operation on stderr: a counter rewritten in place on a terminal, plain lines otherwise.

export interface Progress {
  update(done: number, total: number, label?: string): void;
  done(): void;
}

export function createProgress(title: string, stream: NodeJS.WriteStream = process.stderr, quiet = false): Progress {
  if (quiet) return { update() {}, done() {} };
  const tty = stream.isTTY === true;
  let lastPercent = -1;
  let shown = false;
  return {
    update(done, total, label) {
      const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
      if (tty) {
        stream.write(`\r${title}: ${done}/${total} (${percent}%)${label ? ` ${label}` : ''}\x1b[K`);
        shown = true;
      } else if (Math.floor(percent / 10) !== Math.floor(lastPercent / 10) || done === total) {
        // A plain counter: one line per tenth, so a log keeps a trace without a line per item.
        stream.write(`${title}: ${done}/${total}\n`);
      }
      lastPercent = percent;
    },
    done() {
      if (tty && shown) stream.write('\n');
    },
  };
}
