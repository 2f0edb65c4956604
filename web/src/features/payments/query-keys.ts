// The payments feature's query keys: the top-up options, the customer's own payments by page, and one
// payment while the return from Checkout waits for it.
export const paymentKeys = {
  options: ['payments', 'options'] as const,
  mine: ['payments', 'mine'] as const,
  minePage: (page: number) => ['payments', 'mine', page] as const,
  one: (id: string) => ['payments', 'one', id] as const,
};
