// What a Proxy over a binding (D1, KV, a statement) hands on untouched: the target's own member, a
// method bound to the target, since workerd's bindings refuse to run with the proxy as `this`.
export function passThrough(target: object, prop: string | symbol): unknown {
  const value: unknown = Reflect.get(target, prop, target);
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}
