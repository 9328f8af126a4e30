// The invitation routes as the browser calls them (dates arrive as strings).
import type { z } from "zod";
import { type Json, pathTo, sendJson } from "@/lib/client/api";
import type {
  AcceptedInvitation,
  acceptInvitationInput,
  CreatedInvitation,
  createInvitationInput,
} from "./contracts";

export const membersApi = {
  invite: (input: z.input<typeof createInvitationInput>) =>
    sendJson<Json<CreatedInvitation>>("POST", "/api/admin/invitations", input),
  acceptInvitation: (token: string, input: z.input<typeof acceptInvitationInput>) =>
    sendJson<AcceptedInvitation>("POST", pathTo("/api/invitations/:id/accept", token), input),
};
