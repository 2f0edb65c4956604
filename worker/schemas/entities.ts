// The shapes the API returns, shared by the web app and the CLI.
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
  /** Active keys that expire within 7 days. */
  expiringSoonKeys: number;
  /** Credits this user has paid for keys. */
  creditsSpent: number;
};

// The shop (issue 3): products, license keys, purchases and the exchange.
export type ProductType = 'software' | 'game' | 'service' | 'other';

export type Product = {
  _id: string;
  name: string;
  description: string;
  productType: ProductType;
  keyTag: string;
  baseCreditCost: number;
  creditsPerDay: number;
  minDays: number;
  maxDays: number;
  maxActivations: number;
  /** How long an offline token of this product lives, 1 to 720 hours. */
  offlineTokenHours: number;
  isActive: boolean;
  features: string[];
  /**
   * Counted by the server: every key made (generated or bought), keys sold, credits earned. Keys
   * sold and revenue are the owner's business: everyone else's answer leaves them out.
   */
  stats: { totalGenerated: number; totalSold?: number; revenue?: number; totalActivations: number };
  createdAt: string;
  updatedAt: string | null;
};

export type KeyStatus = 'available' | 'used' | 'revoked' | 'expired';

/** A user a key points at; `username` reads 'Deleted user' once the account is gone. */
export type KeyUserRef = { _id: string; username: string };

export type Activation = {
  _id: string;
  activatedAt: string;
  lastUsed: string | null;
  deviceFingerprint: string;
  deviceInfo: { manufacturer?: string; model?: string; device?: string; cpuAbi?: string; fingerprint?: string } | null;
};

export type LicenseKey = {
  _id: string;
  key: string;
  /** 'expired' as soon as expiresAt has passed, even before the cron job marks the row. */
  status: KeyStatus;
  product: { _id: string; name: string; keyTag: string; productType: ProductType; duration: number; maxActivations: number };
  purchasedAt: string | null;
  purchasedBy: KeyUserRef | null;
  createdBy: KeyUserRef | null;
  duration: number;
  purchasePrice: number;
  revokeReason: string | null;
  firstUsedAt: string | null;
  createdAt: string;
  /** Null while a generated key is unactivated: its clock starts at the first activation. */
  expiresAt: string | null;
  metadata: { generationMethod: 'automatic' | 'purchase' | 'reseller' | 'direct' };
  maxActivations: number;
  activations: Activation[];
  /**
   * Slots of devices that left the key but may still hold an offline token: each stays taken until
   * `freesAt`. The owner can release one at once.
   */
  heldSlots: HeldSlot[];
};

export type HeldSlot = { _id: string; deviceFingerprint: string; releasedAt: string; freesAt: string };

/** The receipt a purchase answers with: `product` is the product's name, as the success card shows it. */
export type PurchaseReceipt = {
  _id: string;
  key: string;
  product: string;
  productId: string;
  duration: number;
  expiryDate: string;
  cost: number;
};

export type PurchaseResponse = { licenseKey: PurchaseReceipt; remainingCredits: number };

export type PurchaseShortfall = { requiredCredits: number; availableCredits: number; baseCost: number; durationCost: number; days: number };

export type MyKeysResponse = { keys: LicenseKey[]; totalPages: number; total: number };

export type ExchangeRateResponse = { rate: number };
export type ExchangeResponse = { user: User; balances: { usd: number; credits: number } };

// Administration (issue 4): user management, the audit log and the admin stats.
/** What a reseller may see of a user, to pick a customer. */
export type UserSummary = Pick<User, '_id' | 'username' | 'email' | 'role'>;
export type AdminUsersResponse<T = User> = { users: T[]; totalPages: number; total: number };
export type AdminUserResponse = { user: User; message?: string };

export type AuditEntry = {
  _id: string;
  action: string;
  /** Null for the system; `username` null once the actor's account is deleted. */
  actor: { _id: string; username: string | null } | null;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown> | null;
  ipAddress: string | null;
  createdAt: string;
};
export type AuditLogResponse = { entries: AuditEntry[]; totalPages: number; total: number };

export type RecentUser = Pick<User, '_id' | 'username' | 'email' | 'role' | 'createdAt'>;

export type AdminStats = {
  totalUsers: number;
  totalKeys: number;
  totalProducts: number;
  /** Credits. */
  totalRevenue: number;
  usersByRole: Record<Role, number>;
  keysByStatus: Record<'available' | 'used' | 'revoked' | 'expired', number>;
  recentActivity: { users: RecentUser[]; keys: LicenseKey[] };
};

// Account security.
export type SecurityInfo = {
  twoFactorEnabled: boolean;
  googleConnected: boolean;
  /** How many unused recovery tokens are left; the tokens themselves are shown only once. */
  recoveryTokens: number;
  googleEmail: string | null;
  /** False for an account made through Google that has not set a password yet. */
  hasPassword: boolean;
  googleAvailable: boolean;
};
export type SessionInfo = {
  id: string;
  device: string;
  browser: string;
  location: string | null;
  ipAddress: string | null;
  lastActive: string;
  createdAt: string;
  current: boolean;
};
export type SecurityLogEntry = { _id: string; event: string; ipAddress: string | null; timestamp: string };
export type TwoFactorSetupResponse = { qrCodeUrl: string; secret: string; otpauthUrl: string };
export type RecoveryTokensResponse = { tokens: string[] };
/** What the Google sign-in hands the app after its redirect (POST /api/auth/google/complete). */
export type GoogleCompletion = LoginResponse | { connected: true; message: string };

// Key management (issue 4, second half): the admin key list, generation and purchases for a customer.
export type AdminKeysResponse = { keys: LicenseKey[]; totalPages: number; total: number };
export type KeyChangeResponse = { success: true; message: string; licenseKey: LicenseKey };
export type BulkDeleteResponse = { success: true; deleted: number; notFound: string[]; message: string };
export type GenerateKeysResponse = { keys: LicenseKey[]; generated: number; message: string };
export type PurchaseForUserResponse = {
  licenseKey: PurchaseReceipt & { purchasedBy: KeyUserRef };
  /** The caller's own credits after the purchase. */
  resellerCredits: number;
  /** What is left to whoever paid; null for the owner's free purchase. */
  remainingCredits: number | null;
  message: string;
};

// API tokens (issue 7): the secret itself is in `CreatedApiToken.token`, shown once.
export type ApiToken = { _id: string; name: string; role: Role; readOnly: boolean; createdAt: string; lastUsedAt: string | null };
export type CreatedApiToken = { token: string; apiToken: ApiToken; message: string };
