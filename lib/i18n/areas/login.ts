/** Messages of the sign-in page, single sign-on's refusals included. */
export const en = {
  "login.title": "Sign in to Tollgate",
  "login.email": "Email",
  "login.password": "Password",
  "login.submit": "Sign in",
  "login.submitting": "Signing in…",
  "login.wrong": "Wrong email or password.",
  "login.throttled": "Too many failed attempts. Wait a few minutes and try again.",
  "login.invalid": "Enter an email address and a password.",
  "login.failed": "Sign-in failed. Try again.",
  "login.unavailable":
    "Tollgate is briefly unavailable (its database is not answering). Try again in a few seconds.",
  "unavailable.title": "Tollgate is briefly unavailable",
  "unavailable.body":
    "Its database is not answering. Nothing you saved is lost; this page tries again by itself.",
  "unavailable.retry": "Try again",
  "login.demoHint": "Demo accounts use the password tollgate-demo (see the README).",
  "login.or": "or",
  "login.sso": "Sign in with {name}",
  "login.error.SsoUnknownUser":
    "No Tollgate account uses this email, and no tenant lets its domain join. Ask your admin for an invitation.",
  "login.error.SsoEmailUnverified":
    "Your identity provider did not confirm a verified email address, so Tollgate cannot match you to an account.",
  "login.error.SsoRefused": "This account may not sign in. Ask your admin.",
  "login.error.SsoIdentityMismatch":
    "This email's Tollgate account is linked to another identity at your provider, so it cannot be yours. Ask your admin.",
  "login.error.SsoSuperAdminUnverified":
    "The platform admin account needs an email your identity provider marks as verified. Sign in with your password.",
  "login.error.AccessDenied": "Sign-in was refused.",
  "login.error.Configuration":
    "Single sign-on is not working right now (a server configuration problem). Try again later or ask your admin.",
  "login.error.OAuthSignInError": "Could not reach the single sign-on provider. Try again later.",
  "login.error.OAuthCallbackError": "The single sign-on provider did not complete the sign-in. Try again.",
  "login.error.Default": "Sign-in failed. Try again.",
} as const;

export const zh: Record<keyof typeof en, string> = {
  "login.title": "登录 Tollgate",
  "login.email": "邮箱",
  "login.password": "密码",
  "login.submit": "登录",
  "login.submitting": "正在登录…",
  "login.wrong": "邮箱或密码错误。",
  "login.throttled": "失败次数过多，请几分钟后再试。",
  "login.invalid": "请输入邮箱和密码。",
  "login.failed": "登录失败，请重试。",
  "login.unavailable": "Tollgate 暂时不可用（数据库没有响应）。请几秒后再试。",
  "unavailable.title": "Tollgate 暂时不可用",
  "unavailable.body": "数据库没有响应。已保存的内容不会丢失；本页会自动重试。",
  "unavailable.retry": "重试",
  "login.demoHint": "演示账户的密码均为 tollgate-demo（见 README）。",
  "login.or": "或",
  "login.sso": "使用 {name} 登录",
  "login.error.SsoUnknownUser":
    "没有 Tollgate 账户使用此邮箱，也没有租户允许该邮箱域名加入。请向管理员索取邀请。",
  "login.error.SsoEmailUnverified": "身份提供方未确认已验证的邮箱地址，Tollgate 无法将你匹配到账户。",
  "login.error.SsoRefused": "此账户不能登录，请联系管理员。",
  "login.error.SsoIdentityMismatch":
    "此邮箱的 Tollgate 账户已关联到身份提供方的另一个身份，不能由你登录。请联系管理员。",
  "login.error.SsoSuperAdminUnverified": "平台管理员账户需要身份提供方标记为已验证的邮箱。请用密码登录。",
  "login.error.AccessDenied": "登录被拒绝。",
  "login.error.Configuration": "单点登录暂时不可用（服务器配置问题）。请稍后再试或联系管理员。",
  "login.error.OAuthSignInError": "无法连接单点登录提供方，请稍后再试。",
  "login.error.OAuthCallbackError": "单点登录提供方未完成登录，请重试。",
  "login.error.Default": "登录失败，请重试。",
};
