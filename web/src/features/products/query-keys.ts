// The products feature's query keys: the catalogue (the owner's answer includes inactive products).
export const productKeys = {
  all: ['products'] as const,
};
