// The mails' words in each language the web app speaks (vocabulary's LANGUAGES): one catalog per
// language, typed by English's shape, so a catalog that lacks a message does not compile (and
// test/mail-words.test.ts checks each writes every kind). A mail is written in its recipient's
// language when it is sent (compose.ts, delivery.ts); an account that never chose one reads English.
import type { Language } from '../../platform/vocabulary';

type Facts = { product: string; key: string };

export type MailWords = {
  hello: (name: string) => string;
  /** A day with no time ('no expiry' when there is none); the day itself is written 2026-12-01 (UTC). */
  utc: string;
  noExpiry: string;
  openMyKeys: string;
  /** The plain-text footer: '<this>: <link>'. */
  toStop: string;
  /** The HTML footer's link. */
  stopLink: string;
  verification: { subject: (app: string) => string; body: string; action: string };
  passwordReset: { subject: (app: string) => string; asked: string; notYou: string; action: string };
  importInvitation: { subject: (app: string) => string; moved: (app: string) => string; noPassword: string; action: string };
  receipt: {
    renewedSubject: (product: string) => string;
    purchaseSubject: (product: string) => string;
    renewed: (f: Facts & { days: string; cost: string; until: string }) => string;
    purchased: (f: { product: string; days: string; cost: string }) => string;
    runsUntil: (until: string) => string;
  };
  expiryReminder: { subject: (product: string, daysLeft: number) => string; body: (f: Facts & { on: string }) => string };
  autoRenewFailed: { subject: (product: string) => string; body: (f: Facts & { cost: string; credits: string; on: string }) => string };
  lowBalance: { subject: (app: string) => string; body: (balance: string, threshold: string) => string; action: string };
  newDevice: { subject: (product: string) => string; body: (f: Facts & { device: string }) => string; noName: string; ifNotYou: string };
  keyReceived: { someone: string; subject: (from: string) => string; body: (f: Facts & { from: string }) => string; valueKept: string };
  /** Security notices, written from their facts (compose.ts). */
  keyGiven: {
    subject: (to: string) => string;
    newValue: (f: Facts & { to: string }) => string;
    valueKept: (f: Facts & { to: string }) => string;
    ifNotYou: string;
  };
  emailChanged: { subject: (app: string) => string; body: (f: { actor: string; app: string; to: string }) => string; ifNotYou: string };
  newOwner: {
    subject: (name: string, app: string) => string;
    body: (f: { actor: string; name: string; email: string; app: string }) => string;
    ifNotYou: string;
  };
};

const en: MailWords = {
  hello: (name) => `Hello ${name},`,
  utc: 'UTC',
  noExpiry: 'no expiry',
  openMyKeys: 'Open My Keys',
  toStop: 'To stop these mails',
  stopLink: 'Stop these mails',
  verification: {
    subject: (app) => `Verify your email address for ${app}`,
    body: 'Confirm that this address is yours. The link works once, for 24 hours.',
    action: 'Confirm my address',
  },
  passwordReset: {
    subject: (app) => `Reset your ${app} password`,
    asked: 'Someone asked to reset the password of your account. The link works once, for one hour.',
    notYou: 'If it was not you, ignore this mail: your password stays as it is.',
    action: 'Choose a new password',
  },
  importInvitation: {
    subject: (app) => `Your ${app} account`,
    moved: (app) => `Your licence keys have moved to ${app}, and an account was made for you with this address.`,
    noPassword: 'It has no password yet. To sign in, choose one: open the link, enter this address, and follow the link we send you.',
    action: 'Choose a password',
  },
  receipt: {
    renewedSubject: (product) => `Receipt: ${product} renewed`,
    purchaseSubject: (product) => `Receipt: your ${product} license key`,
    renewed: (f) =>
      `Your ${f.product} license key ${f.key} was renewed for ${f.days} days, for ${f.cost} credits. It now runs until ${f.until}.`,
    purchased: (f) => `Thank you for your purchase. Your ${f.product} license key, for ${f.days} days, for ${f.cost} credits:`,
    runsUntil: (until) => `It runs until ${until}.`,
  },
  expiryReminder: {
    subject: (product, daysLeft) => `Your ${product} license key expires in ${daysLeft} day${daysLeft === 1 ? '' : 's'}`,
    body: (f) =>
      `Your ${f.product} license key ${f.key} expires on ${f.on}. Renew it in My Keys to keep it working on your devices, with the same value.`,
  },
  autoRenewFailed: {
    subject: (product) => `Your ${product} license key could not be renewed`,
    body: (f) =>
      `Auto-renew could not renew your ${f.product} license key ${f.key}: it costs ${f.cost} credits and your account has ${f.credits}. It expires on ${f.on} unless you renew it.`,
  },
  lowBalance: {
    subject: (app) => `Your ${app} balance is low`,
    body: (balance, threshold) => `Your balance is ${balance}, below ${threshold}. Add to it before your next purchase.`,
    action: 'Add balance',
  },
  newDevice: {
    subject: (product) => `A new device is using your ${product} license key`,
    body: (f) => `Your ${f.product} license key ${f.key} was activated on a new device: ${f.device}.`,
    noName: 'a device with no name',
    ifNotYou: 'If this was not you, remove the device in My Keys and regenerate the key.',
  },
  keyReceived: {
    someone: 'Someone',
    subject: (from) => `${from} gave you a license key`,
    body: (f) => `${f.from} gave you their ${f.product} license key ${f.key}. It is in My Keys.`,
    valueKept: 'They chose to keep its value, so they still know it: regenerate it in My Keys for a value only you know.',
  },
  keyGiven: {
    subject: (to) => `You gave a license key to ${to}`,
    newValue: (f) =>
      `Your ${f.product} license key ${f.key} now belongs to ${f.to}, under a new value: ${f.key} no longer works and your devices were signed out of it.`,
    valueKept: (f) =>
      `Your ${f.product} license key ${f.key} now belongs to ${f.to}, with its devices and its remaining time; you chose to keep its value.`,
    ifNotYou: 'If you did not do this, sign in and change your password.',
  },
  emailChanged: {
    subject: (app) => `The email address of your ${app} account was changed`,
    body: (f) => `An owner (${f.actor}) changed the email address of your ${f.app} account from this address to ${f.to}.`,
    ifNotYou: 'If you did not expect this, contact the shop at once: whoever controls the new address can reset your password.',
  },
  newOwner: {
    subject: (name, app) => `${name} is now an owner of ${app}`,
    body: (f) => `${f.actor} made ${f.name} (${f.email}) an owner of ${f.app}.`,
    ifNotYou: 'An owner can do everything you can. If this was not expected, remove their role and change your password.',
  },
};

const es: MailWords = {
  hello: (name) => `Hola, ${name}:`,
  utc: 'UTC',
  noExpiry: 'sin caducidad',
  openMyKeys: 'Abrir Mis claves',
  toStop: 'Para dejar de recibir estos correos',
  stopLink: 'Dejar de recibir estos correos',
  verification: {
    subject: (app) => `Verifica tu dirección de correo en ${app}`,
    body: 'Confirma que esta dirección es tuya. El enlace funciona una vez, durante 24 horas.',
    action: 'Confirmar mi dirección',
  },
  passwordReset: {
    subject: (app) => `Restablece tu contraseña de ${app}`,
    asked: 'Alguien ha pedido restablecer la contraseña de tu cuenta. El enlace funciona una vez, durante una hora.',
    notYou: 'Si no has sido tú, ignora este correo: tu contraseña no cambia.',
    action: 'Elegir una nueva contraseña',
  },
  importInvitation: {
    subject: (app) => `Tu cuenta de ${app}`,
    moved: (app) => `Tus claves de licencia se han trasladado a ${app} y se ha creado una cuenta para ti con esta dirección.`,
    noPassword:
      'Todavía no tiene contraseña. Para iniciar sesión, elige una: abre el enlace, introduce esta dirección y sigue el enlace que te enviaremos.',
    action: 'Elegir una contraseña',
  },
  receipt: {
    renewedSubject: (product) => `Recibo: ${product} renovado`,
    purchaseSubject: (product) => `Recibo: tu clave de licencia de ${product}`,
    renewed: (f) =>
      `Tu clave de licencia de ${f.product} ${f.key} se ha renovado por ${f.days} días, por ${f.cost} créditos. Ahora funciona hasta el ${f.until}.`,
    purchased: (f) => `Gracias por tu compra. Tu clave de licencia de ${f.product}, por ${f.days} días, por ${f.cost} créditos:`,
    runsUntil: (until) => `Funciona hasta el ${until}.`,
  },
  expiryReminder: {
    subject: (product, daysLeft) => `Tu clave de licencia de ${product} caduca en ${daysLeft} ${daysLeft === 1 ? 'día' : 'días'}`,
    body: (f) =>
      `Tu clave de licencia de ${f.product} ${f.key} caduca el ${f.on}. Renuévala en Mis claves para que siga funcionando en tus dispositivos, con el mismo valor.`,
  },
  autoRenewFailed: {
    subject: (product) => `No se pudo renovar tu clave de licencia de ${product}`,
    body: (f) =>
      `La renovación automática no pudo renovar tu clave de licencia de ${f.product} ${f.key}: cuesta ${f.cost} créditos y tu cuenta tiene ${f.credits}. Caduca el ${f.on} si no la renuevas.`,
  },
  lowBalance: {
    subject: (app) => `Tu saldo en ${app} es bajo`,
    body: (balance, threshold) => `Tu saldo es de ${balance}, por debajo de ${threshold}. Recárgalo antes de tu próxima compra.`,
    action: 'Añadir saldo',
  },
  newDevice: {
    subject: (product) => `Un dispositivo nuevo está usando tu clave de licencia de ${product}`,
    body: (f) => `Tu clave de licencia de ${f.product} ${f.key} se ha activado en un dispositivo nuevo: ${f.device}.`,
    noName: 'un dispositivo sin nombre',
    ifNotYou: 'Si no has sido tú, quita el dispositivo en Mis claves y regenera la clave.',
  },
  keyReceived: {
    someone: 'Alguien',
    subject: (from) => `${from} te ha dado una clave de licencia`,
    body: (f) => `${f.from} te ha dado su clave de licencia de ${f.product} ${f.key}. Está en Mis claves.`,
    valueKept:
      'Ha decidido conservar su valor, así que todavía lo conoce: regénerala en Mis claves para tener un valor que solo tú conozcas.',
  },
  keyGiven: {
    subject: (to) => `Diste una clave de licencia a ${to}`,
    newValue: (f) =>
      `Tu clave de licencia de ${f.product} ${f.key} ahora pertenece a ${f.to}, con un valor nuevo: ${f.key} ya no funciona y tus dispositivos se desconectaron de ella.`,
    valueKept: (f) =>
      `Tu clave de licencia de ${f.product} ${f.key} ahora pertenece a ${f.to}, con sus dispositivos y su tiempo restante; elegiste conservar su valor.`,
    ifNotYou: 'Si no fuiste tú, inicia sesión y cambia tu contraseña.',
  },
  emailChanged: {
    subject: (app) => `Se cambió la dirección de correo de tu cuenta de ${app}`,
    body: (f) => `Un propietario (${f.actor}) cambió la dirección de correo de tu cuenta de ${f.app} de esta dirección a ${f.to}.`,
    ifNotYou: 'Si no lo esperabas, contacta con la tienda de inmediato: quien controle la nueva dirección puede restablecer tu contraseña.',
  },
  newOwner: {
    subject: (name, app) => `${name} es ahora propietario de ${app}`,
    body: (f) => `${f.actor} hizo a ${f.name} (${f.email}) propietario de ${f.app}.`,
    ifNotYou: 'Un propietario puede hacer todo lo que tú puedes. Si no lo esperabas, quítale el rol y cambia tu contraseña.',
  },
};

const ptBR: MailWords = {
  hello: (name) => `Olá, ${name},`,
  utc: 'UTC',
  noExpiry: 'sem validade',
  openMyKeys: 'Abrir Minhas chaves',
  toStop: 'Para parar de receber estes e-mails',
  stopLink: 'Parar de receber estes e-mails',
  verification: {
    subject: (app) => `Confirme seu endereço de e-mail no ${app}`,
    body: 'Confirme que este endereço é seu. O link funciona uma vez, por 24 horas.',
    action: 'Confirmar meu endereço',
  },
  passwordReset: {
    subject: (app) => `Redefina sua senha do ${app}`,
    asked: 'Alguém pediu para redefinir a senha da sua conta. O link funciona uma vez, por uma hora.',
    notYou: 'Se não foi você, ignore este e-mail: sua senha continua a mesma.',
    action: 'Escolher uma nova senha',
  },
  importInvitation: {
    subject: (app) => `Sua conta no ${app}`,
    moved: (app) => `Suas chaves de licença foram transferidas para o ${app}, e uma conta foi criada para você com este endereço.`,
    noPassword:
      'Ela ainda não tem senha. Para entrar, escolha uma: abra o link, digite este endereço e siga o link que enviaremos para você.',
    action: 'Escolher uma senha',
  },
  receipt: {
    renewedSubject: (product) => `Recibo: ${product} renovado`,
    purchaseSubject: (product) => `Recibo: sua chave de licença de ${product}`,
    renewed: (f) =>
      `Sua chave de licença de ${f.product} ${f.key} foi renovada por ${f.days} dias, por ${f.cost} créditos. Agora ela vale até ${f.until}.`,
    purchased: (f) => `Obrigado pela sua compra. Sua chave de licença de ${f.product}, por ${f.days} dias, por ${f.cost} créditos:`,
    runsUntil: (until) => `Ela vale até ${until}.`,
  },
  expiryReminder: {
    subject: (product, daysLeft) => `Sua chave de licença de ${product} expira em ${daysLeft} ${daysLeft === 1 ? 'dia' : 'dias'}`,
    body: (f) =>
      `Sua chave de licença de ${f.product} ${f.key} expira em ${f.on}. Renove-a em Minhas chaves para que continue funcionando nos seus dispositivos, com o mesmo valor.`,
  },
  autoRenewFailed: {
    subject: (product) => `Não foi possível renovar sua chave de licença de ${product}`,
    body: (f) =>
      `A renovação automática não conseguiu renovar sua chave de licença de ${f.product} ${f.key}: ela custa ${f.cost} créditos e sua conta tem ${f.credits}. Ela expira em ${f.on}, a menos que você a renove.`,
  },
  lowBalance: {
    subject: (app) => `Seu saldo no ${app} está baixo`,
    body: (balance, threshold) => `Seu saldo é ${balance}, abaixo de ${threshold}. Recarregue antes da sua próxima compra.`,
    action: 'Adicionar saldo',
  },
  newDevice: {
    subject: (product) => `Um novo dispositivo está usando sua chave de licença de ${product}`,
    body: (f) => `Sua chave de licença de ${f.product} ${f.key} foi ativada em um novo dispositivo: ${f.device}.`,
    noName: 'um dispositivo sem nome',
    ifNotYou: 'Se não foi você, remova o dispositivo em Minhas chaves e regenere a chave.',
  },
  keyReceived: {
    someone: 'Alguém',
    subject: (from) => `${from} deu a você uma chave de licença`,
    body: (f) => `${f.from} deu a você a chave de licença de ${f.product} ${f.key}. Ela está em Minhas chaves.`,
    valueKept:
      'A pessoa escolheu manter o valor, então ainda o conhece: regenere a chave em Minhas chaves para ter um valor que só você conheça.',
  },
  keyGiven: {
    subject: (to) => `Você deu uma chave de licença para ${to}`,
    newValue: (f) =>
      `Sua chave de licença de ${f.product} ${f.key} agora pertence a ${f.to}, com um valor novo: ${f.key} não funciona mais e seus dispositivos foram desconectados dela.`,
    valueKept: (f) =>
      `Sua chave de licença de ${f.product} ${f.key} agora pertence a ${f.to}, com seus dispositivos e o tempo restante; você escolheu manter o valor.`,
    ifNotYou: 'Se não foi você, entre e troque sua senha.',
  },
  emailChanged: {
    subject: (app) => `O endereço de e-mail da sua conta ${app} foi alterado`,
    body: (f) => `Um proprietário (${f.actor}) alterou o endereço de e-mail da sua conta ${f.app} deste endereço para ${f.to}.`,
    ifNotYou: 'Se você não esperava isso, fale com a loja imediatamente: quem controla o novo endereço pode redefinir sua senha.',
  },
  newOwner: {
    subject: (name, app) => `${name} agora é proprietário de ${app}`,
    body: (f) => `${f.actor} tornou ${f.name} (${f.email}) proprietário de ${f.app}.`,
    ifNotYou: 'Um proprietário pode fazer tudo o que você pode. Se isso não era esperado, remova a função e troque sua senha.',
  },
};

const zhCN: MailWords = {
  hello: (name) => `${name}，你好：`,
  utc: 'UTC',
  noExpiry: '无到期时间',
  openMyKeys: '打开“我的密钥”',
  toStop: '如需停止接收这些邮件',
  stopLink: '停止接收这些邮件',
  verification: {
    subject: (app) => `验证你在 ${app} 的邮箱地址`,
    body: '请确认此地址属于你。该链接只能使用一次，有效期 24 小时。',
    action: '确认我的地址',
  },
  passwordReset: {
    subject: (app) => `重置你的 ${app} 密码`,
    asked: '有人请求重置你账户的密码。该链接只能使用一次，有效期一小时。',
    notYou: '如果不是你本人操作，请忽略此邮件：你的密码不会改变。',
    action: '设置新密码',
  },
  importInvitation: {
    subject: (app) => `你的 ${app} 账户`,
    moved: (app) => `你的许可证密钥已迁移到 ${app}，并已使用此地址为你创建了账户。`,
    noPassword: '该账户尚未设置密码。如需登录，请设置一个：打开链接，输入此地址，然后按照我们发送给你的链接操作。',
    action: '设置密码',
  },
  receipt: {
    renewedSubject: (product) => `收据：${product} 已续期`,
    purchaseSubject: (product) => `收据：你的 ${product} 许可证密钥`,
    renewed: (f) => `你的 ${f.product} 许可证密钥 ${f.key} 已续期 ${f.days} 天，花费 ${f.cost} 积分。现在有效期至 ${f.until}。`,
    purchased: (f) => `感谢你的购买。你的 ${f.product} 许可证密钥，时长 ${f.days} 天，花费 ${f.cost} 积分：`,
    runsUntil: (until) => `有效期至 ${until}。`,
  },
  expiryReminder: {
    subject: (product, daysLeft) => `你的 ${product} 许可证密钥将在 ${daysLeft} 天后到期`,
    body: (f) => `你的 ${f.product} 许可证密钥 ${f.key} 将于 ${f.on} 到期。请在“我的密钥”中续期，以便在你的设备上继续使用，密钥值不变。`,
  },
  autoRenewFailed: {
    subject: (product) => `你的 ${product} 许可证密钥无法续期`,
    body: (f) =>
      `自动续期无法续期你的 ${f.product} 许可证密钥 ${f.key}：需要 ${f.cost} 积分，而你的账户只有 ${f.credits}。除非你手动续期，它将于 ${f.on} 到期。`,
  },
  lowBalance: {
    subject: (app) => `你在 ${app} 的余额不足`,
    body: (balance, threshold) => `你的余额为 ${balance}，低于 ${threshold}。请在下次购买前充值。`,
    action: '充值',
  },
  newDevice: {
    subject: (product) => `有新设备正在使用你的 ${product} 许可证密钥`,
    body: (f) => `你的 ${f.product} 许可证密钥 ${f.key} 已在新设备上激活：${f.device}。`,
    noName: '一台未命名的设备',
    ifNotYou: '如果不是你本人操作，请在“我的密钥”中移除该设备并重新生成密钥。',
  },
  keyReceived: {
    someone: '有人',
    subject: (from) => `${from} 送给你一个许可证密钥`,
    body: (f) => `${f.from} 把他们的 ${f.product} 许可证密钥 ${f.key} 给了你。它在“我的密钥”中。`,
    valueKept: '对方选择保留密钥值，因此仍然知道它：请在“我的密钥”中重新生成，得到只有你知道的值。',
  },
  keyGiven: {
    subject: (to) => `你已将一个许可证密钥赠予 ${to}`,
    newValue: (f) => `你的 ${f.product} 许可证密钥 ${f.key} 现在属于 ${f.to}，并换用了新值：${f.key} 已失效，你的设备已从中登出。`,
    valueKept: (f) => `你的 ${f.product} 许可证密钥 ${f.key} 现在属于 ${f.to}，连同其设备和剩余时间；你选择保留了它的值。`,
    ifNotYou: '如果这不是你本人操作，请登录并修改密码。',
  },
  emailChanged: {
    subject: (app) => `你的 ${app} 账户的邮箱地址已更改`,
    body: (f) => `一位所有者（${f.actor}）将你的 ${f.app} 账户邮箱从此地址改为 ${f.to}。`,
    ifNotYou: '如果这出乎你的意料，请立即联系商店：控制新地址的人可以重置你的密码。',
  },
  newOwner: {
    subject: (name, app) => `${name} 现在是 ${app} 的所有者`,
    body: (f) => `${f.actor} 将 ${f.name}（${f.email}）设为 ${f.app} 的所有者。`,
    ifNotYou: '所有者可以做你能做的一切。如果这出乎意料，请撤销其角色并修改你的密码。',
  },
};

/** Arabic counts: 1, 2, 3–10 and 11 up read differently. */
const arabicDays = (n: number) => (n === 1 ? 'يوم واحد' : n === 2 ? 'يومين' : n % 100 >= 3 && n % 100 <= 10 ? `${n} أيام` : `${n} يومًا`);

const ar: MailWords = {
  hello: (name) => `مرحبًا ${name}،`,
  utc: 'UTC',
  noExpiry: 'بلا تاريخ انتهاء',
  openMyKeys: 'فتح «مفاتيحي»',
  toStop: 'لإيقاف هذه الرسائل',
  stopLink: 'إيقاف هذه الرسائل',
  verification: {
    subject: (app) => `أكّد عنوان بريدك الإلكتروني في ${app}`,
    body: 'أكّد أن هذا العنوان لك. يعمل الرابط مرة واحدة خلال 24 ساعة.',
    action: 'تأكيد عنواني',
  },
  passwordReset: {
    subject: (app) => `إعادة تعيين كلمة مرورك في ${app}`,
    asked: 'طلب أحدهم إعادة تعيين كلمة مرور حسابك. يعمل الرابط مرة واحدة خلال ساعة.',
    notYou: 'إن لم تكن أنت، فتجاهل هذه الرسالة: تبقى كلمة مرورك كما هي.',
    action: 'اختيار كلمة مرور جديدة',
  },
  importInvitation: {
    subject: (app) => `حسابك في ${app}`,
    moved: (app) => `انتقلت مفاتيح الترخيص الخاصة بك إلى ${app}، وأُنشئ لك حساب بهذا العنوان.`,
    noPassword: 'ليست له كلمة مرور بعد. لتسجيل الدخول، اختر واحدة: افتح الرابط، وأدخل هذا العنوان، واتبع الرابط الذي نرسله إليك.',
    action: 'اختيار كلمة مرور',
  },
  receipt: {
    renewedSubject: (product) => `إيصال: تم تجديد ${product}`,
    purchaseSubject: (product) => `إيصال: مفتاح ترخيص ${product} الخاص بك`,
    renewed: (f) =>
      `تم تجديد مفتاح ترخيص ${f.product} الخاص بك ${f.key} لمدة ${f.days} يوم، مقابل ${f.cost} رصيد. وهو يعمل الآن حتى ${f.until}.`,
    purchased: (f) => `شكرًا لشرائك. مفتاح ترخيص ${f.product} الخاص بك، لمدة ${f.days} يوم، مقابل ${f.cost} رصيد:`,
    runsUntil: (until) => `يعمل حتى ${until}.`,
  },
  expiryReminder: {
    subject: (product, daysLeft) => `تنتهي صلاحية مفتاح ترخيص ${product} الخاص بك خلال ${arabicDays(daysLeft)}`,
    body: (f) =>
      `تنتهي صلاحية مفتاح ترخيص ${f.product} الخاص بك ${f.key} في ${f.on}. جدّده من «مفاتيحي» ليستمر في العمل على أجهزتك بالقيمة نفسها.`,
  },
  autoRenewFailed: {
    subject: (product) => `تعذّر تجديد مفتاح ترخيص ${product} الخاص بك`,
    body: (f) =>
      `تعذّر على التجديد التلقائي تجديد مفتاح ترخيص ${f.product} الخاص بك ${f.key}: تكلفته ${f.cost} رصيد ولدى حسابك ${f.credits}. تنتهي صلاحيته في ${f.on} ما لم تجدّده.`,
  },
  lowBalance: {
    subject: (app) => `رصيدك في ${app} منخفض`,
    body: (balance, threshold) => `رصيدك ${balance}، أقل من ${threshold}. اشحنه قبل عملية الشراء التالية.`,
    action: 'إضافة رصيد',
  },
  newDevice: {
    subject: (product) => `جهاز جديد يستخدم مفتاح ترخيص ${product} الخاص بك`,
    body: (f) => `تم تفعيل مفتاح ترخيص ${f.product} الخاص بك ${f.key} على جهاز جديد: ${f.device}.`,
    noName: 'جهاز بلا اسم',
    ifNotYou: 'إن لم تكن أنت، فأزل الجهاز من «مفاتيحي» وأعد إنشاء المفتاح.',
  },
  keyReceived: {
    someone: 'أحدهم',
    subject: (from) => `منحك ${from} مفتاح ترخيص`,
    body: (f) => `منحك ${f.from} مفتاح ترخيص ${f.product} الخاص به ${f.key}. تجده في «مفاتيحي».`,
    valueKept: 'اختار الاحتفاظ بقيمته، لذا لا يزال يعرفها: أعد إنشاءه من «مفاتيحي» لتحصل على قيمة لا يعرفها سواك.',
  },
  keyGiven: {
    subject: (to) => `منحت مفتاح ترخيص إلى ${to}`,
    newValue: (f) =>
      `أصبح مفتاح ترخيص ${f.product} الخاص بك ${f.key} ملكًا لـ${f.to} بقيمة جديدة: لم يعد ${f.key} يعمل وسُجّل خروج أجهزتك منه.`,
    valueKept: (f) => `أصبح مفتاح ترخيص ${f.product} الخاص بك ${f.key} ملكًا لـ${f.to} مع أجهزته ووقته المتبقي؛ اخترت الاحتفاظ بقيمته.`,
    ifNotYou: 'إن لم تفعل ذلك، فسجّل الدخول وغيّر كلمة مرورك.',
  },
  emailChanged: {
    subject: (app) => `تغيّر عنوان البريد الإلكتروني لحسابك في ${app}`,
    body: (f) => `غيّر أحد المالكين (${f.actor}) عنوان البريد الإلكتروني لحسابك في ${f.app} من هذا العنوان إلى ${f.to}.`,
    ifNotYou: 'إن لم تتوقع ذلك، فاتصل بالمتجر فورًا: من يتحكم في العنوان الجديد يمكنه إعادة تعيين كلمة مرورك.',
  },
  newOwner: {
    subject: (name, app) => `أصبح ${name} مالكًا لـ${app}`,
    body: (f) => `جعل ${f.actor} المستخدم ${f.name} (${f.email}) مالكًا لـ${f.app}.`,
    ifNotYou: 'يستطيع المالك فعل كل ما تستطيعه. إن لم يكن ذلك متوقعًا، فأزل دوره وغيّر كلمة مرورك.',
  },
};

export const MAIL_WORDS: Record<Language, MailWords> = { en, es, 'pt-BR': ptBR, 'zh-CN': zhCN, ar };

/** The languages written right to left (their HTML part says dir="rtl"). */
export const RIGHT_TO_LEFT: ReadonlySet<Language> = new Set(['ar']);
