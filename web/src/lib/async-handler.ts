// React does nothing with what an event handler returns, so an async handler's promise would be
// dropped. The app's async handlers catch (and show) the failures they expect; this hands them to
// React as plain handlers and logs anything they did not expect instead of losing it.
export function asyncHandler<A extends unknown[]>(handle: (...args: A) => Promise<unknown>): (...args: A) => void {
  return (...args) => {
    handle(...args).catch((err: unknown) => console.error('Unexpected failure in an event handler', err));
  };
}
