// The shapes the API returns (SPEC section 3 and ARCHITECTURE.md), shared by the web app and the CLI.
export type Role = 'user' | 'reseller' | 'owner';

export type User = {
  _id: string;
  username: string;
  email: string;
  role: Role;
  /** USD, two decimals. */
  balance: number;
  credits: number;
  isActive: boolean;
  createdAt: string;
  lastLogin: string | null;
  twoFactorEnabled: boolean;
  googleConnected: boolean;
};

export type LoginResponse = { token: string; user: User } | { requires2FA: true; challenge: string };
export type RegisterResponse = { success: boolean; token: string; user: User; message: string };

export type DashboardStats = {
  totalKeys: number;
  availableKeys: number;
  usedKeys: number;
  expiredKeys: number;
  revokedKeys: number;
  totalProducts: number;
};
