// The exchange feature's query keys: the owner's USD-to-credits rate.
export const exchangeKeys = {
  rate: ['exchange-rate'] as const,
};
