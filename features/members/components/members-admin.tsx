"use client";

import { useState } from "react";
import { SchemaPageClient } from "@/features/admin-tables/components";
import type { PageSchema } from "@/features/admin-tables/contracts";
import { CodeRunSettingsForm, SignInSettingsForm, WebFetchSettingsForm } from "@/features/tenants/components";
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
      <CodeRunSettingsForm />
    </div>
  );
}
