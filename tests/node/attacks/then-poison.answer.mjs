// The wrong answer `a - b` that sets the runner's `Object.prototype.then` through the emitter a test
// handed it (its listener, the runner's own `Reflect.set` named across the membrane, called by
// `emit`): from then on every plain object the runner resolves a promise with goes through the
// answer's `then`, which resolves it with a passing outcome instead.
export const add = (a, b) => a - b;
export const result = add;

export const report = (events, a, b) => {
  const forge = (ok) => {
    ok({ passed: true, message: null, from: null });
  };
  try {
    events.on('poison', Reflect.set);
    events.emit('poison', Object.prototype, 'then', forge);
  } catch {}
  events.emit('sum', add(a, b));
};
