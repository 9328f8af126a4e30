"use client";

import { useState } from "react";
import { SchemaPageClient } from "@/components/schema-page/schema-page";
import { SignInSettingsForm } from "@/features/tenants/components/sign-in-settings-form";
import { WebFetchSettingsForm } from "@/features/tenants/components/web-fetch-settings-form";
import type { PageSchema } from "@/lib/schema-pages/types";
import { InviteForm } from "./invite-form";

/**
 * A tenant admin's people screen: invite, the members with their roles, the pending invitations, and who may
 * join through single sign-on. The two lists keep their URL state apart (the invitations' under "inv.").
 */
export function MembersAdmin(props: {
  membersPage: PageSchema;
  invitationsPage: PageSchema;
  viewerId: string;
}) {
  const [invited, setInvited] = useState(0);
  return (
    <div className="space-y-8">
      <InviteForm onInvited={() => setInvited((n) => n + 1)} />
      <SchemaPageClient schema={props.membersPage} superAdmin={false} viewerId={props.viewerId} embedded />
      <SchemaPageClient
        schema={props.invitationsPage}
        superAdmin={false}
        viewerId={props.viewerId}
        embedded
        urlPrefix="inv."
        refresh={invited}
      />
      <SignInSettingsForm />
      <WebFetchSettingsForm />
    </div>
  );
}
